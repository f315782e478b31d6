// What one hand-off between two threads costs on this machine: a thread asleep on a condition variable
// is woken by another on a different CPU, as tessera's JavaScript thread wakes its decode thread for each
// request (and the decode thread wakes JavaScript with each first token). Prints, for 300 wake-ups 5 ms
// apart (so the sleeper's CPU goes idle, as between requests): the waker's cost (the notify call), the
// sleeper's latency (notify → running), and the same latency for a thread that spins instead of sleeping.
// Built and run by benchmarks/thread-handoff.mjs; Linux only (it pins the two threads to CPUs 0 and 1).
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

using Clock = std::chrono::steady_clock;

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static double micros(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}

static void report(const char* what, std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  std::printf("%-44s p10 %6.1f  median %6.1f  p90 %6.1f µs\n", what, values[n / 10], values[n / 2], values[n * 9 / 10]);
}

int main() {
  constexpr int rounds = 300;
  std::mutex mutex;
  std::condition_variable wake;
  bool go = false;
  std::atomic<bool> flag{false};
  Clock::time_point sent;
  std::vector<double> notifyCost, sleeperLatency, spinnerLatency;
  for (const bool spin : {false, true}) {
    for (int round = 0; round < rounds; round++) {
      go = false;
      flag.store(false);
      std::thread sleeper([&] {
        pin(0);
        if (spin) {
          while (!flag.load(std::memory_order_acquire)) {
          }
        } else {
          std::unique_lock<std::mutex> lock(mutex);
          wake.wait(lock, [&] { return go; });
        }
        (spin ? spinnerLatency : sleeperLatency).push_back(micros(sent, Clock::now()));
      });
      pin(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      {
        std::lock_guard<std::mutex> lock(mutex);
        sent = Clock::now();
        go = true;
        flag.store(true, std::memory_order_release);
      }
      const Clock::time_point before = Clock::now();
      wake.notify_one();
      if (!spin) notifyCost.push_back(micros(before, Clock::now()));
      sleeper.join();
    }
  }
  report("waker: notify_one (sleeper on another CPU)", notifyCost);
  report("sleeper: notify -> running", sleeperLatency);
  report("spinner: flag set -> seen", spinnerLatency);
  return 0;
}
