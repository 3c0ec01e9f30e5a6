#include "stream_queue.h"

namespace tsimdrv {

void Progress::waitFor(uint64_t ticket) {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return completed_ >= ticket; });
}

bool Progress::reached(uint64_t ticket) {
  std::lock_guard lock(mu_);
  return completed_ >= ticket;
}

void Progress::complete(uint64_t ticket) {
  {
    std::lock_guard lock(mu_);
    completed_ = ticket;
  }
  cv_.notify_all();
}

StreamQueue::StreamQueue() : worker_([this] { run(); }) {}

StreamQueue::~StreamQueue() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

uint64_t StreamQueue::enqueue(std::function<void()> work, std::vector<WaitPoint> waits) {
  uint64_t ticket;
  {
    std::lock_guard lock(mu_);
    ticket = ++enqueued_;
    queue_.push_back(Item{ticket, std::move(waits), std::move(work)});
  }
  cv_.notify_one();
  return ticket;
}

WaitPoint StreamQueue::tail() {
  std::lock_guard lock(mu_);
  return WaitPoint{progress_, enqueued_};
}

void StreamQueue::run() {
  for (;;) {
    Item item;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      item = std::move(queue_.front());
      queue_.pop_front();
    }
    for (auto& w : item.waits) w.progress->waitFor(w.ticket);
    if (item.work) item.work();
    progress_->complete(item.ticket);
  }
}

}  // namespace tsimdrv
