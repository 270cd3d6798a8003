// WatchMask: a mask's current state at once, then one message per change,
// until the client cancels.
//
// An open watch holds no thread: it sits in MaskWatchers until a change of
// its mask is published (by this replica's write handlers, or by the store's
// change listener for another replica's writes), and then writes one small
// message. One write is in flight at a time; what happens meanwhile is
// folded into a single pending state (the latest revision, the union of the
// patched rectangles, the number of changes folded), so a slow reader costs
// one message however many changes it misses. A write its reader does not
// take for --stalled-stream-timeout ends the watch (AnswerWatch), as for the
// other streams. At shutdown every watch ends UNAVAILABLE, so its client
// watches again elsewhere.

#include <grpcpp/grpcpp.h>

#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "service/mask_watchers.h"
#include "service/pathfinder_service.h"
#include "service/rpc_status.h"

namespace pathserver {
namespace {

namespace v1 = pathfinding::v1;

// Changes are ordered as the stores order them: by revision, and at the same
// revision a delete after the mask it deleted.
std::uint64_t order_of(std::uint64_t revision, bool deleted) {
  return revision * 2 + (deleted ? 1 : 0);
}

// What a watch sends next: the latest state, and what was folded into it.
struct WatchNews {
  std::uint64_t order = 0;
  std::uint64_t revision = 0;
  v1::MaskChangeKind kind = v1::MASK_CHANGE_KIND_UNSPECIFIED;
  PixelRect changed;
  std::uint32_t missed = 0;
  MaskEntryPtr entry;  // null for a delete
};

v1::MaskChangeKind kind_of(StoreChange::Kind kind) {
  switch (kind) {
    case StoreChange::Kind::kPatched:
      return v1::MASK_CHANGE_KIND_PATCH;
    case StoreChange::Kind::kDeleted:
      return v1::MASK_CHANGE_KIND_DELETE;
    case StoreChange::Kind::kReplaced:
      break;
  }
  return v1::MASK_CHANGE_KIND_UPLOAD;
}

}  // namespace

// The call. Deleted by gRPC (OnDone) after Finish.
class PathfinderService::WatchStream final : public grpc::ServerWriteReactor<grpc::ByteBuffer>,
                                             public MaskWatchers::Watcher {
 public:
  WatchStream(PathfinderService& service, grpc::CallbackServerContext* ctx,
              Metrics::Clock::time_point started)
      : service_(service), ctx_(ctx), started_(started) {}
  WatchStream(const WatchStream&) = delete;
  WatchStream& operator=(const WatchStream&) = delete;

  // On gRPC's thread: admits and decodes the call, finds the mask, registers
  // the watch and writes the mask's current state.
  void start(const grpc::ByteBuffer* request_bytes) {
    // admit_query enters calls_: finish() leaves.
    grpc::Status status = service_.admit_query(*ctx_, *request_bytes, request_);
    if (status.ok()) status = check_request();
    if (status.ok() && !service_.store_.get(request_.mask())) {
      // A mask not held: looked up in the shared store on the pool.
      if (service_.store_lookup_may_help(mask_not_found(request_.mask()), request_.mask(), 0)) {
        const auto look_up = [this] {
          grpc::Status status = service_.catch_up_store(*ctx_, request_.mask());
          if (status.ok()) status = begin();
          if (!status.ok()) finish_now(status);
        };
        if (grpc::Status refused = service_.submit_heavy(*ctx_, look_up); !refused.ok()) {
          finish_now(refused);
        }
        return;
      }
    }
    if (status.ok()) status = begin();
    if (!status.ok()) finish_now(status);
  }

  void tell(const StoreChange& change) override {
    const std::uint64_t order = order_of(change.revision, change.kind == StoreChange::Kind::kDeleted);
    std::unique_lock lock(mutex_);
    if (order <= latest_order_locked()) return;  // told already (a write here and its listener)
    if (pending_) {
      ++pending_->missed;
      if (pending_->kind == v1::MASK_CHANGE_KIND_PATCH &&
          change.kind == StoreChange::Kind::kPatched) {
        pending_->changed = bounding_union(pending_->changed, change.patched);
      } else if (pending_->kind != v1::MASK_CHANGE_KIND_CURRENT) {
        // Folded changes that were not all patches: anything may have changed.
        pending_->kind = kind_of(change.kind) == v1::MASK_CHANGE_KIND_DELETE
                             ? v1::MASK_CHANGE_KIND_DELETE
                             : v1::MASK_CHANGE_KIND_UPLOAD;
        pending_->changed = {};
      }
      pending_->order = order;
      pending_->revision = change.revision;
      pending_->entry = change.entry;
    } else {
      pending_ = WatchNews{order, change.revision, kind_of(change.kind),
                           change.kind == StoreChange::Kind::kPatched ? change.patched : PixelRect{},
                           0, change.entry};
    }
    write_pending(lock);
  }

  void shut() override { end(grpc::Status(grpc::StatusCode::UNAVAILABLE, "server shutting down")); }

  void OnWriteDone(bool ok) override {
    const bool stalled = service_.answer_watch_.write_done(this);
    std::unique_lock lock(mutex_);
    writing_ = false;
    if (!ok) {
      lock.unlock();
      finish_now(stalled ? service_.answer_watch_.stalled_status()
                         : grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
      return;
    }
    if (end_status_) {
      const grpc::Status status = *end_status_;
      lock.unlock();
      finish_now(status);
      return;
    }
    write_pending(lock);
  }

  // The client cancelled (or the deadline passed): a write in flight fails
  // (OnWriteDone(false)); an idle watch ends here.
  void OnCancel() override {
    end(grpc::Status(grpc::StatusCode::CANCELLED, "the client ended the watch"));
  }

  void OnDone() override {
    if (registered_) service_.watchers_.remove(request_.mask(), *this);
    (void)service_.answer_watch_.write_done(this);
    delete this;
  }

 private:
  ~WatchStream() = default;

  grpc::Status check_request() const {
    if (auto problem = mask_name_problem(request_.mask())) return invalid("mask: " + *problem);
    return grpc::Status::OK;
  }

  // Registers the watch and queues the mask's current state. Registered
  // first, so that no change between the lookup and the registration is lost.
  grpc::Status begin() {
    const MaskEntryPtr found = service_.store_.get(request_.mask());
    if (!found) return mask_missing(service_.store_, request_.mask());
    registered_ = true;  // before add: once added, another thread may end the call
    if (!service_.watchers_.add(request_.mask(), *this)) {
      registered_ = false;
      return {grpc::StatusCode::RESOURCE_EXHAUSTED,
              "mask: " + std::to_string(service_.watchers_.max_watchers()) +
                  " watches are open on this server, the most it keeps (--max-watchers)"};
    }
    // Whatever is held now, or the deletion that came between.
    const MaskEntryPtr current = service_.store_.get(request_.mask());
    std::unique_lock lock(mutex_);
    ready_ = true;
    if (end_status_) {  // cancelled or shut meanwhile: end() left the finish to this thread
      const grpc::Status status = *end_status_;
      lock.unlock();
      finish_now(status);
      return grpc::Status::OK;
    }
    if (!pending_) {
      pending_ = current ? WatchNews{order_of(current->revision, false), current->revision,
                                     v1::MASK_CHANGE_KIND_CURRENT, {}, 0, current}
                         : WatchNews{order_of(found->revision, true), found->revision,
                                     v1::MASK_CHANGE_KIND_DELETE, {}, 0, nullptr};
    }
    if (pending_->kind != v1::MASK_CHANGE_KIND_DELETE) pending_->kind = v1::MASK_CHANGE_KIND_CURRENT;
    pending_->changed = {};
    pending_->missed = 0;
    write_pending(lock);
    return grpc::Status::OK;
  }

  [[nodiscard]] std::uint64_t latest_order_locked() const {
    return pending_ ? pending_->order : sent_order_;
  }

  // Starts writing the pending state unless a write is in flight or the
  // watch is ending. Unlocks `lock`.
  void write_pending(std::unique_lock<std::mutex>& lock) {
    if (writing_ || end_status_ || !pending_ || !ready_) return;
    WatchNews news = std::move(*pending_);
    pending_.reset();
    sent_order_ = news.order;
    writing_ = true;
    lock.unlock();
    v1::MaskChange message;
    message.set_mask(request_.mask());
    message.set_revision(news.revision);
    message.set_kind(news.kind);
    if (news.kind == v1::MASK_CHANGE_KIND_PATCH) {
      v1::Rect& changed = *message.mutable_changed();
      changed.set_x(news.changed.x);
      changed.set_y(news.changed.y);
      changed.set_width(news.changed.width);
      changed.set_height(news.changed.height);
    }
    message.set_missed(news.missed);
    if (news.entry) {
      message.set_width(news.entry->mask->width());
      message.set_height(news.entry->mask->height());
      message.set_sha256(news.entry->sha256);
    }
    buffer_.Clear();
    bool own = false;
    (void)grpc::SerializationTraits<v1::MaskChange>::Serialize(message, &buffer_, &own);
    grpc::CallbackServerContext* ctx = ctx_;
    service_.answer_watch_.write_started(this, buffer_.Length(), [ctx] { ctx->TryCancel(); });
    StartWrite(&buffer_);
  }

  // Ends the watch: at once when no write is in flight, else once it is
  // done; before the watch is ready, begin() ends it (the thread running
  // begin() still uses the call).
  void end(const grpc::Status& status) {
    std::unique_lock lock(mutex_);
    if (end_status_) return;
    end_status_ = status;
    if (writing_ || !ready_) return;
    lock.unlock();
    finish_now(status);
  }

  // Finishes the call (once). Nothing of it is touched afterwards: gRPC may
  // delete it as soon as Finish is called.
  void finish_now(const grpc::Status& status) {
    {
      const std::lock_guard lock(mutex_);
      if (finished_) return;
      finished_ = true;
      if (!end_status_) end_status_ = status;
    }
    (void)service_.answer_watch_.write_done(this);
    service_.log_and_count("WatchMask", request_.mask(), *ctx_, started_, status);
    PathfinderService& service = service_;
    Finish(status);
    service.calls_.leave();
  }

  PathfinderService& service_;
  grpc::CallbackServerContext* const ctx_;
  const Metrics::Clock::time_point started_;
  v1::WatchMaskRequest request_;
  bool registered_ = false;  // in watchers_ (set before, and read after, any other thread sees it)

  std::mutex mutex_;
  bool ready_ = false;                // the first state is queued: writes may start
  std::optional<WatchNews> pending_;  // not written yet
  std::uint64_t sent_order_ = 0;      // of the last state written
  bool writing_ = false;
  std::optional<grpc::Status> end_status_;  // the watch is ending
  bool finished_ = false;
  grpc::ByteBuffer buffer_;  // the message being written
};

grpc::ServerWriteReactor<grpc::ByteBuffer>* PathfinderService::WatchMask(
    grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request) {
  auto* call = new WatchStream(*this, ctx, start_call());  // deleted by gRPC (OnDone)
  call->start(request);
  return call;
}

}  // namespace pathserver
