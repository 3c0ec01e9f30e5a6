// A stream is a worker thread that runs its queue in order. Work can wait on points of other
// streams (tickets); the driver adds those for legacy-default-stream ordering and cuStreamWaitEvent.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tsimdrv {

// How far a stream's queue has run. Shared so waiters can outlive the stream.
class Progress {
 public:
  void waitFor(uint64_t ticket);
  bool reached(uint64_t ticket);
  void complete(uint64_t ticket);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t completed_ = 0;
};

struct WaitPoint {
  std::shared_ptr<Progress> progress;
  uint64_t ticket = 0;
};

class StreamQueue {
 public:
  StreamQueue();
  ~StreamQueue();  // runs what is queued, then joins
  StreamQueue(const StreamQueue&) = delete;
  StreamQueue& operator=(const StreamQueue&) = delete;

  // Queues `work` to run after every wait point; returns its ticket.
  uint64_t enqueue(std::function<void()> work, std::vector<WaitPoint> waits = {});
  // A wait point that is reached once everything queued so far has run.
  WaitPoint tail();
  void synchronize() { auto t = tail(); t.progress->waitFor(t.ticket); }
  bool idle() { auto t = tail(); return t.progress->reached(t.ticket); }

 private:
  struct Item {
    uint64_t ticket;
    std::vector<WaitPoint> waits;
    std::function<void()> work;
  };
  void run();

  std::shared_ptr<Progress> progress_ = std::make_shared<Progress>();
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  uint64_t enqueued_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace tsimdrv
