/*
 * coll_gloo.cc - the host backend's collective engine over Gloo (C++17
 * behind the C interface of coll_gloo.h; that header says which Gloo
 * algorithm each kind runs and how failures behave).
 *
 * Pieces:
 *  - StoreAdapter: gloo::rendezvous::Store over the tfl_coll_store torchfl
 *    lends while a communicator is made (keys under "gloo/"), one deadline
 *    for the whole rendezvous.
 *  - GlooCtx: gloo::rendezvous::Context plus closeAll(), which fails
 *    every operation this rank has pending on the comm (so a thread
 *    blocked in a collective returns at once) and closes every connection
 *    (the peers' pending operations fail at once; every later call on
 *    this comm fails).  Used by comm_abort and after any failure inside
 *    coll_run.  Waking this rank's own waiters is what the TCP
 *    transport's Context::signalException does (a libgloo export), but its
 *    header cannot be compiled from Debian's libgloo-dev (it includes a
 *    gloo/common/memory.h the package leaves out), so closeAll finds the
 *    function with dlsym and calls it on the transport context when that
 *    context is TCP's (checked by its dynamic type).  Without it (another
 *    Gloo build), a call already blocked ends at the comm's timeout
 *    (nccl.timeout) instead.
 *  - Reduction functions per storage type x op (fp16/bf16 computed in
 *    float, rounded to nearest even; integers wrap).  AVG = SUM then a
 *    division by nranks on the result; PREMUL_SUM = SUM over a scaled
 *    copy of the input.
 *  - coll_run: validates everything first (TFL_ERR_INVALID leaves the
 *    comm untouched), posts every SEND/RECV, runs the collectives in
 *    order, then waits for the point-to-point operations.
 *
 * Tags and slots.  Every collective takes the next value of a per-comm
 * counter (the same on every rank, as every rank issues the same
 * collectives in the same order) combined with a 16-bit fingerprint of
 * its kind, size, type, op and root: a rank that issues another
 * collective (or another count) than its peers waits on slots they never
 * use and fails with the timeout, instead of exchanging mismatched bytes
 * (Gloo's event loop aborts the process on a size mismatch).  Point-to-
 * point operations use slot prefix 0x10 (Gloo's collectives use
 * 0x01-0x08), the per-(peer, direction) sequence number (NCCL's pairwise
 * ordering: the k-th send from a to b meets the k-th receive on b from a)
 * and the byte count, for the same reason.
 */
#include "backends/host/coll_gloo.h"

#include "common/half.h"

#include <dlfcn.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <cmath>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/common/logging.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/attr.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>

namespace {

using ms = std::chrono::milliseconds;
using steady = std::chrono::steady_clock;

/* timeout_ms <= 0: effectively none (Gloo's own "no timeout" is 0, which
 * its unbound buffers read as "expire at once"). */
constexpr int64_t kForeverMs = 30LL * 24 * 3600 * 1000;

/* ------------------------------------------------------------- SIGPIPE */

/* Gloo writes to its sockets with writev, which raises SIGPIPE on a
 * connection the peer closed; a program that left SIGPIPE at its default
 * (any plain C program; Python ignores it) would die of a dead peer
 * instead of getting TFL_ERR_DEVICE.  The signal goes to the thread that
 * wrote, so it is kept blocked on the threads that write: the caller's,
 * for the duration of each entry point (a SIGPIPE raised meanwhile is
 * consumed before the mask comes back), and Gloo's event-loop thread,
 * which inherits the blocked mask from comm_create (where the device and
 * its thread are made) and keeps it.  The process's disposition is left
 * alone. */
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    wasPending_ = sigismember(&pending, SIGPIPE) == 1;
  }
  ~SigpipeBlock() {
    sigset_t pending;
    sigemptyset(&pending);
    if (!wasPending_ && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
      struct timespec zero = {0, 0};
      sigtimedwait(&pipe_, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t pipe_, old_;
  bool wasPending_ = false;
};

/* ---------------------------------------------------------------- store */

class StoreAdapter : public gloo::rendezvous::Store {
 public:
  StoreAdapter(const tfl_coll_store* s, int rank, ms timeout)
      : s_(s), rank_(rank), timeout_(timeout), deadline_(steady::now() + timeout) {}

  void set(const std::string& key, const std::vector<char>& data) override {
    const std::string k = kPrefix + key;
    tfl_status st = s_->set(s_->ctx, k.c_str(), data.data(), data.size());
    if (st != TFL_OK)
      throw gloo::IoException("rendezvous store: set(" + k + ") failed (status " +
                              std::to_string(st) + ")");
  }

  std::vector<char> get(const std::string& key) override { return fetch(key, deadline_); }

  void wait(const std::vector<std::string>& keys) override {
    for (const auto& k : keys)
      fetch(k, deadline_);
  }

  void wait(const std::vector<std::string>& keys, const ms& timeout) override {
    auto until = std::min(deadline_, steady::now() + timeout);
    for (const auto& k : keys)
      fetch(k, until);
  }

 private:
  static constexpr const char* kPrefix = "gloo/";
  const tfl_coll_store* s_;
  int rank_;
  ms timeout_;
  steady::time_point deadline_;

  /* Which rank a Gloo rendezvous key belongs to ("3" or "rank_3"). */
  static std::string whose(const std::string& key) {
    std::string d = key.compare(0, 5, "rank_") == 0 ? key.substr(5) : key;
    if (!d.empty() && std::all_of(d.begin(), d.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      return "rank " + d;
    return "a rank";
  }

  std::vector<char> fetch(const std::string& key, steady::time_point until) {
    const std::string k = kPrefix + key;
    size_t cap = 4096;
    for (;;) {
      std::vector<char> buf(cap);
      int64_t left = std::chrono::duration_cast<ms>(until - steady::now()).count();
      size_t len = 0;
      tfl_status st = s_->get(s_->ctx, k.c_str(), buf.data(), cap, &len, std::max<int64_t>(left, 1));
      if (st == TFL_ERR_NOT_READY)
        throw gloo::IoException("rank " + std::to_string(rank_) + ": timed out after " +
                                std::to_string(timeout_.count()) + " ms waiting for " +
                                whose(key) + " to join (rendezvous key " + k + ")");
      if (st != TFL_OK)
        throw gloo::IoException("rendezvous store: get(" + k + ") failed (status " +
                                std::to_string(st) + ")");
      /* len == cap may be a truncated value: read again with more room */
      if (len < cap) {
        buf.resize(len);
        return buf;
      }
      if (cap >= (size_t(64) << 20))
        throw gloo::IoException("rendezvous store: value of " + k + " too large");
      cap *= 4;
    }
  }
};

/* --------------------------------------------------------------- context */

/* gloo::transport::tcp::Context::signalException(const std::string&), a
 * non-virtual member: called as a function taking `this` first (the
 * Itanium C++ ABI's calling convention for member functions). */
using SignalFn = void (*)(void* self, const std::string& msg);

static SignalFn tcpSignalException() {
  static SignalFn fn = reinterpret_cast<SignalFn>(dlsym(
      RTLD_DEFAULT,
      "_ZN4gloo9transport3tcp7Context15signalExceptionERKNSt7__cxx1112basic_stringIcSt11char_"
      "traitsIcESaIcEEE"));
  return fn;
}

class GlooCtx : public gloo::rendezvous::Context {
 public:
  GlooCtx(int rank, int size) : gloo::rendezvous::Context(rank, size) {}

  /* Fail this rank's pending operations with msg, then close every
   * connection.  Idempotent; safe from any thread while another uses the
   * context (each pair signals and closes under its own lock; the pair
   * list does not change once connected). */
  void closeAll(const std::string& msg) {
    gloo::transport::Context* tc = transportContext_.get();
    /* tcp::Context's first base is transport::Context: same address */
    if (tc && tcpSignalException() &&
        std::strcmp(typeid(*tc).name(), "N4gloo9transport3tcp7ContextE") == 0)
      tcpSignalException()(tc, msg);
    closeConnections();
  }
};

/* ------------------------------------------------------------ reductions */

struct H16 { uint16_t b; };
struct B16 { uint16_t b; };

template <typename S> struct Num {
  using C = S;
  static C get(S v) { return v; }
  static S put(C v) { return v; }
};
template <> struct Num<H16> {
  using C = float;
  static float get(H16 v) { return tfl_f16_to_f32(v.b); }
  static H16 put(float f) { return H16{tfl_f32_to_f16(f)}; }
};
template <> struct Num<B16> {
  using C = float;
  static float get(B16 v) { return tfl_bf16_to_f32(v.b); }
  static B16 put(float f) { return B16{tfl_f32_to_bf16(f)}; }
};

enum Red { kSum, kProd, kMax, kMin };

template <typename C> inline C add(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <typename C> inline C mul(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}
template <typename C> inline C vmax(C a, C b) {
  if constexpr (std::is_floating_point_v<C>)
    return std::fmax(a, b);
  else
    return a > b ? a : b;
}
template <typename C> inline C vmin(C a, C b) {
  if constexpr (std::is_floating_point_v<C>)
    return std::fmin(a, b);
  else
    return a < b ? a : b;
}

template <typename S, int R> inline S apply(S a, S b) {
  using N = Num<S>;
  auto x = N::get(a), y = N::get(b);
  if constexpr (R == kSum)
    return N::put(add(x, y));
  else if constexpr (R == kProd)
    return N::put(mul(x, y));
  else if constexpr (R == kMax)
    return N::put(vmax(x, y));
  else
    return N::put(vmin(x, y));
}

/* Gloo's reduction shape: out = a op b, out may alias a or b. */
template <typename S, int R> void reduce3(void* o, const void* a, const void* b, size_t n) {
  S* out = static_cast<S*>(o);
  const S* x = static_cast<const S*>(a);
  const S* y = static_cast<const S*>(b);
  for (size_t i = 0; i < n; i++)
    out[i] = apply<S, R>(x[i], y[i]);
}

template <typename S> gloo::AllreduceOptions::Func reduceFunc(int r) {
  switch (r) {
  case kProd: return &reduce3<S, kProd>;
  case kMax: return &reduce3<S, kMax>;
  case kMin: return &reduce3<S, kMin>;
  default: return &reduce3<S, kSum>;
  }
}

int redOf(tfl_coll_redop op) {
  switch (op) {
  case TFL_CRED_PROD: return kProd;
  case TFL_CRED_MAX: return kMax;
  case TFL_CRED_MIN: return kMin;
  default: return kSum; /* SUM, AVG, PREMUL_SUM */
  }
}

/* PREMUL_SUM's scaling, NCCL's way: the scalar in the element type, one
 * correctly rounded multiply per element (fp16/bf16 products of two
 * 11-/8-bit significands are exact in float, then rounded once). */
template <typename S> void premul(S* p, size_t n, double s) {
  using N = Num<S>;
  using C = typename N::C;
  if constexpr (std::is_integral_v<C>) {
    double t = std::isfinite(s) ? std::trunc(s) : 0.0;
    t = std::min(std::max(t, -9223372036854775808.0), 9223372036854774784.0);
    const C k = static_cast<C>(static_cast<int64_t>(t));
    for (size_t i = 0; i < n; i++)
      p[i] = mul(p[i], k);
  } else {
    const C k = N::get(N::put(static_cast<C>(s)));
    for (size_t i = 0; i < n; i++)
      p[i] = N::put(N::get(p[i]) * k);
  }
}

/* AVG: the sum divided by nranks (integers truncate toward zero). */
template <typename S> void divide(S* p, size_t n, int nranks) {
  using N = Num<S>;
  using C = typename N::C;
  const C d = static_cast<C>(nranks);
  for (size_t i = 0; i < n; i++)
    p[i] = N::put(static_cast<C>(N::get(p[i]) / d));
}

template <typename T> struct Tag { using type = T; };

/* f(Tag<S>{}) with the storage type of (dtype, is_unsigned). */
template <typename F> void withType(tfl_dtype dt, int uns, F&& f) {
  switch (dt) {
  case TFL_DT_F32: f(Tag<float>{}); break;
  case TFL_DT_F64: f(Tag<double>{}); break;
  case TFL_DT_F16: f(Tag<H16>{}); break;
  case TFL_DT_BF16: f(Tag<B16>{}); break;
  case TFL_DT_I8: f(Tag<int8_t>{}); break;
  case TFL_DT_U8: f(Tag<uint8_t>{}); break;
  case TFL_DT_I32:
    if (uns) f(Tag<uint32_t>{}); else f(Tag<int32_t>{});
    break;
  case TFL_DT_I64:
    if (uns) f(Tag<uint64_t>{}); else f(Tag<int64_t>{});
    break;
  default:
    throw gloo::EnforceNotMet(__FILE__, __LINE__, "dtype", "unsupported dtype");
  }
}

size_t elemSize(tfl_dtype dt) {
  switch (dt) {
  case TFL_DT_F32: case TFL_DT_F64: case TFL_DT_F16: case TFL_DT_BF16:
  case TFL_DT_I8: case TFL_DT_U8: case TFL_DT_I32: case TFL_DT_I64:
    return tfl_dtype_size(dt);
  default:
    return 0;
  }
}

bool isP2P(tfl_coll_kind k) { return k == TFL_COLL_SEND || k == TFL_COLL_RECV; }

bool reduces(tfl_coll_kind k) {
  return k == TFL_COLL_ALLREDUCE || k == TFL_COLL_REDUCE || k == TFL_COLL_REDUCE_SCATTER;
}

bool overlaps(const void* a, size_t na, const void* b, size_t nb) {
  auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return na && nb && x < y + nb && y < x + na;
}

/* All-reduces smaller than this (bytes) run Gloo's bcube algorithm,
 * larger ones its ring. */
constexpr size_t kBcubeBelow = 256 << 10;

/* One line: newlines (Gloo's enforce messages have them) become "; ". */
std::string oneLine(std::string s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    if (ch == '\n' || ch == '\r') {
      if (!out.empty() && out.back() != ' ')
        out += "; ";
    } else {
      out += ch;
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ';'))
    out.pop_back();
  return out;
}

tfl_status say(char* err, size_t len, tfl_status st, const std::string& msg) {
  if (err && len) {
    std::string m = oneLine(msg);
    size_t n = std::min(m.size(), len - 1);
    memcpy(err, m.data(), n);
    err[n] = '\0';
  }
  return st;
}

uint16_t fingerprint(const tfl_coll_op& o, size_t es) {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](uint64_t v) {
    for (int i = 0; i < 8; i++) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ULL;
    }
  };
  mix(static_cast<uint64_t>(o.kind));
  if (o.kind != TFL_COLL_BARRIER) {
    if (reduces(o.kind)) {
      mix(o.count);
      mix(static_cast<uint64_t>(o.dtype));
      mix(static_cast<uint64_t>(o.dtype == TFL_DT_I32 || o.dtype == TFL_DT_I64 ? !!o.is_unsigned : 0));
      mix(static_cast<uint64_t>(o.op));
    } else {
      mix(o.count * es); /* only bytes move */
    }
    if (o.kind == TFL_COLL_BROADCAST || o.kind == TFL_COLL_REDUCE)
      mix(static_cast<uint64_t>(o.peer));
  }
  return static_cast<uint16_t>(h ^ (h >> 16) ^ (h >> 32) ^ (h >> 48));
}

constexpr uint64_t kP2PSlotPrefix = 0x10;

uint64_t p2pSlot(uint32_t seq, size_t nbytes) {
  uint64_t b = static_cast<uint64_t>(nbytes);
  uint32_t fold = static_cast<uint32_t>(b ^ (b >> 32));
  return (kP2PSlotPrefix << 56) | (static_cast<uint64_t>(fold) << 24) | (seq & 0xffffffu);
}

} // namespace

/* ------------------------------------------------------------------ comm */

/* A send in flight: the unbound buffer over a copy of the caller's data. */
struct Outgoing {
  std::unique_ptr<gloo::transport::UnboundBuffer> buf;
  std::unique_ptr<char[]> data;
};

struct tfl_comm_s {
  int rank = 0;
  int nranks = 1;
  ms timeout{0};
  std::shared_ptr<gloo::transport::Device> dev;
  std::shared_ptr<GlooCtx> ctx;
  std::shared_ptr<gloo::Context> gctx; /* the same, as Gloo's options take it */
  uint32_t seq = 0;                    /* collectives issued               */
  std::vector<uint32_t> sendSeq;       /* per peer: sends to it            */
  std::vector<uint32_t> recvSeq;       /* per peer: receives from it       */
  std::atomic<bool> aborted{false};
  std::atomic<bool> failed{false};
  std::mutex whyMu;
  std::string why;                     /* the first failure (whyMu)        */

  /* Sends to other ranks complete in the background (coll_gloo.h): the
   * reaper thread waits for each in turn and frees its copy. */
  std::mutex outMu;
  std::condition_variable outCv;
  std::deque<Outgoing> outbox;         /* outMu; only the reaper pops      */
  bool closing = false;                /* outMu: drain, then stop          */
  std::thread reaper;

  /* Scratch reused from call to call (one thread at a time uses a comm):
   * a fresh buffer per call costs a page fault per 4 KB, more than the
   * copy itself for large messages.  Grows to the largest use; freed with
   * the comm. */
  std::unique_ptr<unsigned char[]> work;
  size_t workCap = 0;
  unsigned char* workspace(size_t n) {
    if (n > workCap) {
      work.reset();
      work.reset(new unsigned char[n]);
      workCap = n;
    }
    return work.get();
  }

  void fail(const std::string& msg) {
    std::lock_guard<std::mutex> g(whyMu);
    if (!failed.load())
      why = msg;
    failed.store(true);
  }
  std::string failure() {
    std::lock_guard<std::mutex> g(whyMu);
    return why;
  }

  /* Wait for every send in flight (each bounded by the timeout; at once
   * after an abort or a failure), then stop the reaper. */
  void drain() {
    {
      std::lock_guard<std::mutex> g(outMu);
      closing = true;
    }
    outCv.notify_all();
    if (reaper.joinable())
      reaper.join();
  }

  ~tfl_comm_s() {
    drain();
    /* Pairs refer to the device: context first. */
    gctx.reset();
    ctx.reset();
    dev.reset();
  }
};

static void reap(tfl_comm_s* c) {
  std::unique_lock<std::mutex> lk(c->outMu);
  for (;;) {
    c->outCv.wait(lk, [c] { return c->closing || !c->outbox.empty(); });
    if (c->outbox.empty())
      return;
    /* deque: the front stays put while the caller pushes at the back */
    Outgoing& o = c->outbox.front();
    lk.unlock();
    std::string msg;
    try {
      if (!o.buf->waitSend(c->timeout))
        msg = "send aborted";
    } catch (const std::exception& e) {
      msg = e.what();
    }
    lk.lock();
    c->outbox.pop_front();
    if (!msg.empty())
      c->fail(oneLine(msg));
  }
}

/* Post a send of n bytes at p to peer on slot, from a copy of the data. */
static void postSend(tfl_comm_s* c, const void* p, size_t n, int peer, uint64_t slot) {
  Outgoing o;
  o.data.reset(new char[n]);
  memcpy(o.data.get(), p, n);
  o.buf = c->gctx->createUnboundBuffer(o.data.get(), n);
  o.buf->send(peer, slot, 0, n);
  {
    std::lock_guard<std::mutex> g(c->outMu);
    c->outbox.push_back(std::move(o));
    if (!c->reaper.joinable())   /* inherits the caller's blocked SIGPIPE */
      c->reaper = std::thread(reap, c);
  }
  c->outCv.notify_one();
}

namespace {

/* ------------------------------------------------------------------- run */

class Run {
 public:
  explicit Run(tfl_comm_s* c) : c_(c) {}

  void go(const tfl_coll_op* ops, int n) {
    /* 1. post every send and receive (self: matched here, in order) */
    std::vector<const tfl_coll_op*> selfSends, selfRecvs;
    for (int i = 0; i < n; i++) {
      const tfl_coll_op& o = ops[i];
      if (!isP2P(o.kind) || o.count == 0)
        continue;
      if (o.peer == c_->rank) {
        (o.kind == TFL_COLL_SEND ? selfSends : selfRecvs).push_back(&o);
        continue;
      }
      const size_t nbytes = o.count * elemSize(o.dtype);
      if (o.kind == TFL_COLL_SEND) {
        postSend(c_, o.send, nbytes, o.peer, p2pSlot(c_->sendSeq[o.peer]++, nbytes));
      } else {
        auto buf = c_->gctx->createUnboundBuffer(o.recv, nbytes);
        buf->recv(o.peer, p2pSlot(c_->recvSeq[o.peer]++, nbytes), 0, nbytes);
        recvs_.push_back(std::move(buf));
      }
    }
    for (size_t i = 0; i < selfSends.size(); i++) /* sizes checked before */
      memmove(selfRecvs[i]->recv, selfSends[i]->send, selfRecvs[i]->count * elemSize(selfRecvs[i]->dtype));

    /* 2. the collectives, in order */
    for (int i = 0; i < n; i++)
      if (!isP2P(ops[i].kind))
        collective(ops[i]);

    /* 3. wait for the receives (sends complete in the background) */
    for (auto& b : recvs_)
      if (!b->waitRecv(c_->timeout))
        throw gloo::IoException("receive aborted");
  }

 private:
  tfl_comm_s* c_;
  std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> recvs_;

  template <typename Opts> void common(Opts& o, uint32_t tag) {
    o.setTag(tag);
    o.setTimeout(c_->timeout);
  }

  void collective(const tfl_coll_op& o) {
    const size_t es = elemSize(o.dtype);
    const uint32_t tag = (c_->seq++ & 0xffffu) | (static_cast<uint32_t>(fingerprint(o, es)) << 16);
    const int nr = c_->nranks, me = c_->rank;
    const size_t bytes = o.count * es;
    if (o.kind != TFL_COLL_BARRIER && o.count == 0)
      return;

    switch (o.kind) {
    case TFL_COLL_ALLREDUCE:
      if (o.recv != o.send)
        memmove(o.recv, o.send, bytes);
      allreduce(o, o.recv, o.count, tag);
      break;

    case TFL_COLL_BROADCAST: {
      if (me == o.peer && o.recv != o.send)
        memmove(o.recv, o.send, bytes);
      gloo::BroadcastOptions opts(c_->gctx);
      opts.setOutput(static_cast<uint8_t*>(o.recv), bytes);
      opts.setRoot(o.peer);
      common(opts, tag);
      gloo::broadcast(opts);
      break;
    }

    case TFL_COLL_REDUCE: {
      /* in place on recv at the root, on a copy elsewhere (NCCL's
       * non-root recvbuff is not used) */
      void* buf = me != o.peer ? c_->workspace(bytes) : o.recv;
      if (buf != o.send)
        memmove(buf, o.send, bytes);
      withType(o.dtype, o.is_unsigned, [&](auto t) {
        using S = typename decltype(t)::type;
        S* p = static_cast<S*>(buf);
        if (o.op == TFL_CRED_PREMUL_SUM)
          premul(p, o.count, o.premul);
        gloo::ReduceOptions opts(c_->gctx);
        opts.setOutput(p, o.count);
        opts.setRoot(o.peer);
        opts.setReduceFunction(reduceFunc<S>(redOf(o.op)));
        common(opts, tag);
        gloo::reduce(opts);
        if (o.op == TFL_CRED_AVG && me == o.peer)
          divide(p, o.count, nr);
      });
      break;
    }

    case TFL_COLL_ALLGATHER: {
      /* this rank's block into place (memmove: send may overlap recv),
       * then Gloo's in-place allgather */
      uint8_t* out = static_cast<uint8_t*>(o.recv);
      if (o.send != out + me * bytes)
        memmove(out + me * bytes, o.send, bytes);
      gloo::AllgatherOptions opts(c_->gctx);
      opts.setOutput(out, bytes * nr);
      common(opts, tag);
      gloo::allgather(opts);
      break;
    }

    case TFL_COLL_REDUCE_SCATTER: {
      /* Gloo 0.5's reduce-scatter (ReduceScatterHalvingDoubling) is an
       * old-style algorithm on bound buffers made per call: a buffer
       * freed when run() returns may still sit in the pair's transmit
       * queue, its byte count is an int, and slots come from a counter
       * that overflows.  So: Gloo's alltoall (pairwise exchange) brings
       * block `me` of every rank's input here - (n-1)/n of the input moves
       * per rank, as in a ring reduce-scatter - and the n blocks are
       * reduced locally, in rank order, with the same reduction functions
       * the allreduce uses. */
      const size_t total = bytes * nr;
      unsigned char* tmp = c_->workspace(total);
      gloo::AlltoallOptions opts(c_->gctx);
      opts.setInput(static_cast<uint8_t*>(const_cast<void*>(o.send)), total);
      opts.setOutput(tmp, total);
      common(opts, tag);
      gloo::alltoall(opts);
      withType(o.dtype, o.is_unsigned, [&](auto t) {
        using S = typename decltype(t)::type;
        S* blocks = reinterpret_cast<S*>(tmp);
        if (o.op == TFL_CRED_PREMUL_SUM)
          premul(blocks, o.count * nr, o.premul);
        const auto fn = reduceFunc<S>(redOf(o.op));
        for (int r = 1; r < nr; r++)
          fn(blocks, blocks, blocks + static_cast<size_t>(r) * o.count, o.count);
        memmove(o.recv, blocks, bytes);
        if (o.op == TFL_CRED_AVG)
          divide(static_cast<S*>(o.recv), o.count, nr);
      });
      break;
    }

    case TFL_COLL_ALLTOALL: {
      const size_t total = bytes * nr;
      const void* in = o.send;
      if (overlaps(o.send, total, o.recv, total)) {
        unsigned char* tmp = c_->workspace(total);
        memcpy(tmp, o.send, total);
        in = tmp;
      }
      gloo::AlltoallOptions opts(c_->gctx);
      opts.setInput(static_cast<uint8_t*>(const_cast<void*>(in)), total);
      opts.setOutput(static_cast<uint8_t*>(o.recv), total);
      common(opts, tag);
      gloo::alltoall(opts);
      break;
    }

    case TFL_COLL_BARRIER: {
      gloo::BarrierOptions opts(c_->gctx);
      common(opts, tag);
      gloo::barrier(opts);
      break;
    }

    default:
      throw gloo::EnforceNotMet(__FILE__, __LINE__, "kind", "unknown collective kind");
    }
  }

  /* In place on buf (count elements of o's type), with o's op. */
  void allreduce(const tfl_coll_op& o, void* buf, size_t count, uint32_t tag, bool avg = true) {
    withType(o.dtype, o.is_unsigned, [&](auto t) {
      using S = typename decltype(t)::type;
      S* p = static_cast<S*>(buf);
      if (o.op == TFL_CRED_PREMUL_SUM)
        premul(p, count, o.premul);
      gloo::AllreduceOptions opts(c_->gctx);
      opts.setOutput(p, count);
      opts.setReduceFunction(reduceFunc<S>(redOf(o.op)));
      /* below 256 KB Gloo's bcube (fewer, larger steps) beats its ring:
       * 1 KB - 64 KB took 0.6x - 0.7x the time on 2 and 4 ranks here */
      if (count * sizeof(S) < kBcubeBelow)
        opts.setAlgorithm(gloo::AllreduceOptions::Algorithm::BCUBE);
      common(opts, tag);
      gloo::allreduce(opts);
      if (avg && o.op == TFL_CRED_AVG)
        divide(p, count, c_->nranks);
    });
  }
};

template <typename E> int rawEnum(const E& e) {
  static_assert(sizeof(E) == sizeof(int), "C enums are int-sized");
  int v;
  memcpy(&v, &e, sizeof v);
  return v;
}

/* Everything checked before anything is posted: an invalid call leaves
 * the comm as it was.  Returns "" when the ops are fine. */
std::string validate(const tfl_comm_s* c, const tfl_coll_op* ops, int n) {
  std::vector<size_t> selfSend, selfRecv;
  for (int i = 0; i < n; i++) {
    const tfl_coll_op& o = ops[i];
    const std::string at = "op " + std::to_string(i) + ": ";
    /* the enums come from C: any int may be there */
    const int kind = rawEnum(o.kind), dtype = rawEnum(o.dtype), op = rawEnum(o.op);
    if (kind < 0 || kind >= TFL_COLL_KIND_COUNT)
      return at + "unknown collective kind " + std::to_string(kind);
    if (o.kind == TFL_COLL_BARRIER)
      continue;
    if (dtype < 0 || dtype >= TFL_DT_COUNT || !elemSize(o.dtype))
      return at + "unsupported dtype " + std::to_string(dtype);
    const size_t es = elemSize(o.dtype);
    if (reduces(o.kind) && (op < 0 || op >= TFL_CRED_COUNT))
      return at + "unknown reduction " + std::to_string(op);
    const bool rooted = o.kind == TFL_COLL_BROADCAST || o.kind == TFL_COLL_REDUCE;
    if ((rooted || isP2P(o.kind)) && (o.peer < 0 || o.peer >= c->nranks))
      return at + (rooted ? "root " : "peer ") + std::to_string(o.peer) + " out of range (" +
             std::to_string(c->nranks) + " ranks)";
    if (o.count > SIZE_MAX / es / static_cast<size_t>(c->nranks) ||
        o.count * es * static_cast<size_t>(c->nranks) > static_cast<size_t>(PTRDIFF_MAX))
      return at + "count " + std::to_string(o.count) + " too large";
    if (o.count == 0)
      continue;
    const bool root = rooted && o.peer == c->rank;
    bool needSend = true, needRecv = true;
    switch (o.kind) {
    case TFL_COLL_BROADCAST: needSend = root; break;
    case TFL_COLL_REDUCE: needRecv = root; break;
    case TFL_COLL_SEND: needRecv = false; break;
    case TFL_COLL_RECV: needSend = false; break;
    default: break;
    }
    if (needSend && !o.send)
      return at + "NULL send buffer";
    if (needRecv && !o.recv)
      return at + "NULL receive buffer";
    if (isP2P(o.kind) && o.peer == c->rank)
      (o.kind == TFL_COLL_SEND ? selfSend : selfRecv).push_back(o.count * es);
  }
  if (selfSend.size() != selfRecv.size())
    return std::to_string(selfSend.size()) + " send(s) to self but " +
           std::to_string(selfRecv.size()) + " receive(s) from self in the group";
  for (size_t i = 0; i < selfSend.size(); i++)
    if (selfSend[i] != selfRecv[i])
      return "send to self #" + std::to_string(i) + " of " + std::to_string(selfSend[i]) +
             " bytes meets a receive of " + std::to_string(selfRecv[i]) + " bytes";
  return "";
}

} // namespace

/* ------------------------------------------------------------- C entry */

extern "C" tfl_status hcoll_comm_create(int dev, int nranks, int rank, const tfl_coll_store* store,
                                        int64_t timeout_ms, tfl_comm* out, char* err,
                                        size_t errlen) {
  if (err && errlen)
    err[0] = '\0';
  if (!out)
    return say(err, errlen, TFL_ERR_INVALID, "gloo: NULL communicator pointer");
  *out = nullptr;
  if (dev < 0 || nranks < 1 || rank < 0 || rank >= nranks)
    return say(err, errlen, TFL_ERR_INVALID,
               "gloo: bad rank " + std::to_string(rank) + " of " + std::to_string(nranks) +
                   " (device " + std::to_string(dev) + ")");
  if (!store || !store->set || !store->get)
    return say(err, errlen, TFL_ERR_INVALID, "gloo: no rendezvous store");
  if (!store->local_addr || !*store->local_addr)
    return say(err, errlen, TFL_ERR_INVALID, "gloo: no local address to listen on");
  {
    /* Gloo resolves the address itself and misreads getaddrinfo errors:
     * refuse anything that is not a numeric address here. */
    struct addrinfo hints, *res = nullptr;
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = AI_NUMERICHOST;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(store->local_addr, nullptr, &hints, &res) != 0 || !res)
      return say(err, errlen, TFL_ERR_INVALID,
                 std::string("gloo: local address '") + store->local_addr + "' is not a numeric IP address");
    freeaddrinfo(res);
  }
  const ms timeout(timeout_ms > 0 ? timeout_ms : kForeverMs);
  const std::string who = "gloo: rank " + std::to_string(rank) + " of " + std::to_string(nranks) + ": ";
  SigpipeBlock noPipe; /* the device's loop thread starts with it blocked */
  try {
    std::unique_ptr<tfl_comm_s> c(new tfl_comm_s);
    c->rank = rank;
    c->nranks = nranks;
    c->timeout = timeout;
    c->sendSeq.assign(nranks, 0);
    c->recvSeq.assign(nranks, 0);
    gloo::transport::tcp::attr attr;
    attr.hostname = store->local_addr;
    c->dev = gloo::transport::tcp::CreateDevice(attr);
    c->ctx = std::make_shared<GlooCtx>(rank, nranks);
    c->ctx->setTimeout(timeout);
    StoreAdapter st(store, rank, timeout);
    c->ctx->connectFullMesh(st, c->dev);
    c->gctx = c->ctx;
    *out = c.release();
    return TFL_OK;
  } catch (const gloo::IoException& e) {
    return say(err, errlen, TFL_ERR_DEVICE, who + e.what());
  } catch (const gloo::EnforceNotMet& e) {
    return say(err, errlen, TFL_ERR_INVALID, who + e.what());
  } catch (const gloo::InvalidOperationException& e) {
    return say(err, errlen, TFL_ERR_INVALID, who + e.what());
  } catch (const std::bad_alloc&) {
    return say(err, errlen, TFL_ERR_NOMEM, who + "out of memory");
  } catch (const std::exception& e) {
    return say(err, errlen, TFL_ERR_DEVICE, who + e.what());
  } catch (...) {
    return say(err, errlen, TFL_ERR_DEVICE, who + "unknown error");
  }
}

extern "C" tfl_status hcoll_comm_destroy(tfl_comm c) {
  if (!c)
    return TFL_ERR_INVALID;
  SigpipeBlock noPipe;
  try {
    delete c;
  } catch (...) {
    return TFL_ERR_INTERNAL;
  }
  return TFL_OK;
}

extern "C" tfl_status hcoll_comm_abort(tfl_comm c) {
  if (!c)
    return TFL_ERR_INVALID;
  c->aborted.store(true);
  SigpipeBlock noPipe;
  try {
    if (c->ctx)
      c->ctx->closeAll("torchfl: communicator aborted (rank " + std::to_string(c->rank) + ")");
  } catch (...) {
    return TFL_ERR_INTERNAL;
  }
  return TFL_OK;
}

extern "C" tfl_status hcoll_comm_error(tfl_comm c, char* err, size_t errlen) {
  if (err && errlen)
    err[0] = '\0';
  if (!c)
    return TFL_ERR_INVALID;
  if (!c->failed.load())
    return TFL_OK;
  try {
    return say(err, errlen, TFL_ERR_DEVICE,
               "gloo: rank " + std::to_string(c->rank) + ": " + c->failure());
  } catch (...) {
    return TFL_ERR_DEVICE;
  }
}

extern "C" tfl_status hcoll_coll_run(tfl_comm c, const tfl_coll_op* ops, int n, tfl_stream s,
                                     char* err, size_t errlen) {
  (void)s; /* the host backend runs in issue order: already ordered */
  if (err && errlen)
    err[0] = '\0';
  if (!c)
    return say(err, errlen, TFL_ERR_INVALID, "gloo: NULL communicator");
  if (n < 0 || (n > 0 && !ops))
    return say(err, errlen, TFL_ERR_INVALID, "gloo: bad op list");
  const std::string who = "gloo: rank " + std::to_string(c->rank) + " of " + std::to_string(c->nranks) + ": ";
  if (c->aborted.load())
    return say(err, errlen, TFL_ERR_DEVICE, who + "communicator aborted");
  if (c->failed.load())
    return say(err, errlen, TFL_ERR_DEVICE, who + "communicator failed earlier: " + c->failure());
  std::string bad;
  try {
    bad = validate(c, ops, n);
  } catch (const std::bad_alloc&) {
    return say(err, errlen, TFL_ERR_NOMEM, who + "out of memory");
  }
  if (!bad.empty())
    return say(err, errlen, TFL_ERR_INVALID, who + bad);
  if (n == 0)
    return TFL_OK;

  SigpipeBlock noPipe;
  Run run(c); /* outlives the catch: its buffers go after the close below */
  tfl_status st = TFL_OK;
  std::string msg;
  try {
    run.go(ops, n);
  } catch (const gloo::IoException& e) {
    st = TFL_ERR_DEVICE;
    msg = e.what();
  } catch (const gloo::EnforceNotMet& e) {
    st = TFL_ERR_INVALID;
    msg = e.what();
  } catch (const gloo::InvalidOperationException& e) {
    st = TFL_ERR_INVALID;
    msg = e.what();
  } catch (const std::bad_alloc&) {
    st = TFL_ERR_NOMEM;
    msg = "out of memory";
  } catch (const std::exception& e) {
    st = TFL_ERR_DEVICE;
    msg = e.what();
  } catch (...) {
    st = TFL_ERR_DEVICE;
    msg = "unknown error";
  }
  if (st == TFL_OK)
    return TFL_OK;
  /* A collective that failed half way leaves the ranks out of step: close
   * the comm to every peer (their pending operations fail at once rather
   * than at their timeout) and refuse later calls. */
  if (c->aborted.load()) {
    st = TFL_ERR_DEVICE;
    msg = "communicator aborted";
  }
  msg = oneLine(msg);
  c->fail(msg);
  try {
    c->ctx->closeAll("torchfl: rank " + std::to_string(c->rank) + " failed: " + msg);
  } catch (...) {
  }
  return say(err, errlen, st, who + msg);
}
