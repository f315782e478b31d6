// Plain Jinja chat templates written into `tokenizer.chat_template`, one per vocabulary family. They
// use only the special tokens that exist in that vocabulary, so llama.cpp and node-llama-cpp recognize
// the format (Llama 2 `[INST]` for the SPM vocabulary, Llama 3 headers for the BPE one).

export const llama2ChatTemplate =
  "{{ bos_token }}" +
  "{% for message in messages %}" +
  "{% if message['role'] == 'system' %}<<SYS>>\n{{ message['content'] }}\n<</SYS>>\n\n" +
  "{% elif message['role'] == 'user' %}[INST] {{ message['content'] }} [/INST]" +
  "{% elif message['role'] == 'assistant' %} {{ message['content'] }} {{ eos_token }}" +
  "{% endif %}" +
  "{% endfor %}";

export const llama3ChatTemplate =
  "{{ bos_token }}" +
  "{% for message in messages %}" +
  "<|start_header_id|>{{ message['role'] }}<|end_header_id|>\n\n{{ message['content'] | trim }}<|eot_id|>" +
  "{% endfor %}" +
  "{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>\n\n{% endif %}";
