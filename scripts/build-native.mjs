// Placeholder until the native addon lands: the native build is wired into `prepare` from day one
// so that the install command never changes.
console.log("tessera: no native addon yet");
