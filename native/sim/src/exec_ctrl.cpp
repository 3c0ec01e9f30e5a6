// Control flow (bra, call, ret, exit, trap), CTA barriers, vprintf and __assertfail.
#include <cstdio>
#include <thread>

#include "exec_core.h"

namespace tsim {

namespace {

inline void advance(Warp& w) {
  w.pc++;
  if (w.pc >= w.nextPc) reschedule(w);
}

// Lanes in `moved` got their own pcs; the rest of the group continues after this instruction.
inline void split(Warp& w, uint32_t moved) {
  w.mask &= ~moved;
  w.pc++;
  reschedule(w);
}

void braOp(Ctx& c, const Inst& in, uint32_t exec) {
  Warp& w = *c.w;
  if (exec == w.mask) {
    w.pc = in.target;
    if (w.pc >= w.nextPc) reschedule(w);
    return;
  }
  if (!exec) return advance(w);
  FOR_LANES(exec) w.pcs[l] = in.target;
  split(w, exec);
}

// brx.idx{.uni} index, tlist: each lane branches to entry `index` of the .branchtargets list
// (Program::ext at in.ext: [count, pc...]); an index past the list is undefined in the ISA: a
// named fault here.
void brxOp(Ctx& c, const Inst& in, uint32_t exec) {
  Warp& w = *c.w;
  if (!exec) return advance(w);
  const uint32_t* list = &c.prog->ext[in.ext];
  const uint64_t* idx = slot(c, in.s[0]);
  uint32_t first = ~0u;
  bool same = true;
  FOR_LANES(exec) {
    if ((uint32_t)idx[l] >= list[0]) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false,
            "brx.idx: index " + std::to_string((uint32_t)idx[l]) + " is outside its .branchtargets list of " + std::to_string(list[0]) + " labels");
      return;
    }
    uint32_t t = list[1 + (uint32_t)idx[l]];
    if (first == ~0u) first = t;
    same &= t == first;
  }
  if (same && exec == w.mask) {
    w.pc = first;
    if (w.pc >= w.nextPc) reschedule(w);
    return;
  }
  FOR_LANES(exec) w.pcs[l] = list[1 + (uint32_t)idx[l]];
  split(w, exec);
}

void exitLanes(Ctx& c, uint32_t exec) {
  Warp& w = *c.w;
  w.live &= ~exec;
  wakeWarpSync(w);
  c.cta->liveThreads -= (unsigned)__builtin_popcount(exec);
  split(w, exec);
}

void exitOp(Ctx& c, const Inst&, uint32_t exec) {
  if (!exec) return advance(*c.w);
  exitLanes(c, exec);
}

void retOp(Ctx& c, const Inst&, uint32_t exec) {
  Warp& w = *c.w;
  if (!exec) return advance(w);
  uint32_t done = 0;
  FOR_LANES(exec) {
    if (w.depth[l] == 0) done |= 1u << l;
    else w.pcs[l] = w.stack[l][--w.depth[l]];
  }
  if (done) {
    w.live &= ~done;
    wakeWarpSync(w);
    c.cta->liveThreads -= (unsigned)__builtin_popcount(done);
  }
  split(w, exec);
}

void trapOp(Ctx& c, const Inst&, uint32_t exec) {
  if (!exec) return advance(*c.w);
  raise(c, Fault::Trap, __builtin_ctz(exec), 0, 0, false, "trap");
}

inline uint8_t* localBase(Ctx& c, unsigned lane) {
  return c.cta->local.data() + (size_t)(c.w->id * kWarp + lane) * c.cta->localBytes;
}

// ext: callee, n, then n triples (caller offset, callee offset, bytes)
void callOp(Ctx& c, const Inst& in, uint32_t exec) {
  Warp& w = *c.w;
  if (!exec) return advance(w);
  const uint32_t* e = &c.prog->ext[in.ext];
  uint32_t entry = c.prog->funcs[e[0]].entryPc, n = e[1];
  FOR_LANES(exec) {
    if (w.depth[l] >= kMaxCallDepth) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "call stack overflow (recursion is not supported)");
      return;
    }
    uint8_t* base = localBase(c, l);
    for (uint32_t i = 0; i < n; i++) memcpy(base + e[3 + 3 * i], base + e[2 + 3 * i], e[4 + 3 * i]);
    w.stack[l][w.depth[l]++] = w.pc + 1;
  }
  if (exec == w.mask) {
    w.pc = entry;
    if (w.pc >= w.nextPc) reschedule(w);
    return;
  }
  FOR_LANES(exec) w.pcs[l] = entry;
  split(w, exec);
}

// After a call returns: copy the callee's return parameters into the caller's. ext: n, triples.
void retCopyOp(Ctx& c, const Inst& in, uint32_t exec) {
  const uint32_t* e = &c.prog->ext[in.ext];
  uint32_t n = e[0];
  FOR_LANES(exec) {
    uint8_t* base = localBase(c, l);
    for (uint32_t i = 0; i < n; i++) memcpy(base + e[1 + 3 * i], base + e[2 + 3 * i], e[3 + 3 * i]);
  }
}

// bar.sync / barrier.sync a{, b}; mode 1 = arrive only
void barOp(Ctx& c, const Inst& in, uint32_t exec) {
  Warp& w = *c.w;
  if (!exec) return advance(w);
  unsigned first = __builtin_ctz(exec);
  unsigned id = (unsigned)slot(c, in.s[0])[first] & (kNumBarriers - 1);
  unsigned count = in.s[1] ? (unsigned)slot(c, in.s[1])[first] : 0;
  if (c.san) sanBarArrive(c, in, exec, id, count, in.mode == 1);
  c.cta->arrived[id] += (unsigned)__builtin_popcount(exec);
  if (count) c.cta->expected[id] = count;
  if (in.mode == 1) return advance(w);
  FOR_LANES(exec) {
    w.pcs[l] = w.pc + 1;
    w.barId[l] = (uint8_t)id;
  }
  w.waiting |= exec;
  split(w, exec);
}

// bar.red.{popc.u32,and.pred,or.pred} d, a{, b}, {!}c: a barrier that also reduces c over the
// arriving threads; s[2] = c (negated: flags 0x100), mode = kind, d[0] = destination.
void barRedOp(Ctx& c, const Inst& in, uint32_t exec) {
  Warp& w = *c.w;
  if (!exec) return advance(w);
  unsigned first = __builtin_ctz(exec);
  unsigned id = (unsigned)slot(c, in.s[0])[first] & (kNumBarriers - 1);
  unsigned count = in.s[1] ? (unsigned)slot(c, in.s[1])[first] : 0;
  const uint64_t* p = slot(c, in.s[2]);
  bool neg = in.flags & 0x100;
  if (c.san) sanBarArrive(c, in, exec, id, count, false);
  c.cta->arrived[id] += (unsigned)__builtin_popcount(exec);
  if (count) c.cta->expected[id] = count;
  FOR_LANES(exec) {
    c.cta->redCount[id] += (unsigned)((p[l] & 1) ^ neg);
    w.pcs[l] = w.pc + 1;
    w.barId[l] = (uint8_t)id;
    w.redDst[l] = in.d[0];
    w.redKind[l] = in.mode;
  }
  w.waiting |= exec;
  split(w, exec);
}

void nopOp(Ctx&, const Inst&, uint32_t) {}
void nanosleepOp(Ctx&, const Inst&, uint32_t) { std::this_thread::yield(); }

// ---- vprintf ----
bool readGeneric(Ctx& c, unsigned lane, uint64_t addr, void* out, unsigned bytes) {
  uint64_t win = addr & kWindowMask;
  if (win == kSharedWindow) {
    uint64_t off = addr - kSharedWindow;
    if (off + bytes > c.cta->shared.size()) return false;
    memcpy(out, c.cta->shared.data() + off, bytes);
    return true;
  }
  if (win == kLocalWindow) {
    uint64_t off = addr - kLocalWindow;
    if (off + bytes > c.cta->localBytes) return false;
    memcpy(out, localBase(c, lane) + off, bytes);
    return true;
  }
  Fault f;
  uint8_t* p = c.L->mem->translate(addr, bytes, false, f);
  if (!p) return false;
  memcpy(out, p, bytes);
  return true;
}

std::string readCString(Ctx& c, unsigned lane, uint64_t addr) {
  std::string s;
  char ch;
  while (s.size() < 4096 && readGeneric(c, lane, addr + s.size(), &ch, 1) && ch) s += ch;
  return s;
}

// ext: retOffset (~0 = none), fmt param offset, args param offset (caller local)
void vprintfOp(Ctx& c, const Inst& in, uint32_t exec) {
  const uint32_t* e = &c.prog->ext[in.ext];
  FOR_LANES(exec) {
    uint8_t* base = localBase(c, l);
    uint64_t fmtp, argp;
    memcpy(&fmtp, base + e[1], 8);
    memcpy(&argp, base + e[2], 8);
    std::string fmt = readCString(c, l, fmtp), out;
    size_t off = 0;
    auto arg = [&](unsigned bytes) {
      uint64_t v = 0;
      off = (off + bytes - 1) / bytes * bytes;
      readGeneric(c, l, argp + off, &v, bytes);
      off += bytes;
      return v;
    };
    for (size_t i = 0; i < fmt.size(); i++) {
      if (fmt[i] != '%') { out += fmt[i]; continue; }
      size_t j = i + 1;
      while (j < fmt.size() && strchr("-+ #0123456789.", fmt[j])) j++;
      int longs = 0;
      while (j < fmt.size() && (fmt[j] == 'l' || fmt[j] == 'h' || fmt[j] == 'z')) { if (fmt[j] != 'h') longs++; j++; }
      if (j >= fmt.size()) break;
      char conv = fmt[j];
      std::string spec = fmt.substr(i, j - i);
      std::string flagsOnly;
      for (char ch : spec) if (ch != 'l' && ch != 'h' && ch != 'z') flagsOnly += ch;
      char buf[512];
      switch (conv) {
        case '%': out += '%'; break;
        case 'd': case 'i':
          if (longs) snprintf(buf, sizeof buf, (flagsOnly + "lld").c_str(), (long long)arg(8));
          else snprintf(buf, sizeof buf, (flagsOnly + "d").c_str(), (int)(int32_t)arg(4));
          out += buf;
          break;
        case 'u': case 'x': case 'X': case 'o':
          if (longs) snprintf(buf, sizeof buf, (flagsOnly + "ll" + conv).c_str(), (unsigned long long)arg(8));
          else snprintf(buf, sizeof buf, (flagsOnly + conv).c_str(), (unsigned)arg(4));
          out += buf;
          break;
        case 'c': snprintf(buf, sizeof buf, (flagsOnly + "c").c_str(), (int)arg(4)); out += buf; break;
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
          uint64_t b = arg(8);
          double d;
          memcpy(&d, &b, 8);
          snprintf(buf, sizeof buf, (flagsOnly + conv).c_str(), d);
          out += buf;
          break;
        }
        case 's': {
          std::string s = readCString(c, l, arg(8));
          snprintf(buf, sizeof buf, (flagsOnly + "s").c_str(), s.c_str());
          out += buf;
          break;
        }
        case 'p': snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)arg(8)); out += buf; break;
        default: out += spec + conv; break;
      }
      i = j;
    }
    if (PrintCapture* cap = c.L->cfg->prints) {
      // kept for the host: the consumed argument bytes and the two words after them (see sim.h)
      PrintRecord r;
      r.args.assign((off + 3) / 4 * 4 + 8, 0);
      for (size_t b = 0; b < r.args.size(); b++) readGeneric(c, l, argp + b, &r.args[b], 1);
      for (int k = 0; k < 3; k++) r.ctaid[k] = c.cta->ctaid[k];
      const unsigned* blk = c.L->cfg->block;
      unsigned t = c.w->id * kWarp + l;
      r.tid[0] = t % blk[0];
      r.tid[1] = (t / blk[0]) % blk[1];
      r.tid[2] = t / (blk[0] * blk[1]);
      r.text = out;
      std::lock_guard<std::mutex> g(c.L->printMu);
      size_t bytes = r.text.size() + r.args.size() + sizeof r.ctaid + sizeof r.tid;
      if (cap->bytes + bytes > PrintCapture::kMaxBytes) cap->dropped++;
      else {
        cap->bytes += bytes;
        cap->records.push_back(std::move(r));
      }
    } else {
      std::lock_guard<std::mutex> g(c.L->printMu);
      fwrite(out.data(), 1, out.size(), stdout);
      fflush(stdout);
    }
    if (e[0] != ~0u) {
      int32_t n = (int32_t)out.size();
      memcpy(base + e[0], &n, 4);
    }
  }
}

// __assertfail(message, file, line, function, charSize): what a failed assert() calls. Prints
// the message as the CUDA runtime does (unless vprintf is captured), then stops the launch
// (CUDA_ERROR_ASSERT).
// ext: offsets of the five parameters in the caller's local memory.
void assertfailOp(Ctx& c, const Inst& in, uint32_t exec) {
  if (!exec) return;
  const uint32_t* e = &c.prog->ext[in.ext];
  unsigned l = __builtin_ctz(exec);
  uint8_t* base = localBase(c, l);
  uint64_t msg, file, func;
  uint32_t line;
  memcpy(&msg, base + e[0], 8);
  memcpy(&file, base + e[1], 8);
  memcpy(&line, base + e[2], 4);
  memcpy(&func, base + e[3], 8);
  std::string text = readCString(c, l, file) + ":" + std::to_string(line) + ": " + readCString(c, l, func) +
                     ": Assertion `" + readCString(c, l, msg) + "` failed.";
  if (!c.L->cfg->prints) {  // a capturing host reports the failure itself
    std::lock_guard<std::mutex> g(c.L->printMu);
    std::fprintf(stderr, "%s\n", text.c_str());
  }
  raise(c, Fault::Trap, (int)l, 0, 0, false, "assert: " + text);
}

// ---- decoders ----
bool braDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.ops.size() != 1) return dc.fail("bra takes one label");
  in.fn = &braOp;
  in.flags |= kfControl;
  in.cls = kControl;
  return dc.label(st.ops[0], in);
}
bool brxDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (!st.has("idx") || st.ops.size() != 2) return dc.fail("expected brx.idx{.uni} index, tlist");
  if (st.ops[1].kind != Operand::Sym && st.ops[1].kind != Operand::Reg) return dc.fail("brx.idx: expected a .branchtargets label");
  int at = dc.targets(st.ops[1].name);
  if (at < 0) return dc.fail("brx.idx: '" + st.ops[1].name + "' is not a .branchtargets list declared before it");
  in.fn = &brxOp;
  in.flags |= kfControl;
  in.cls = kControl;
  in.s[0] = dc.src(st.ops[0], Ty::U32);
  in.ext = (uint32_t)at;
  return true;
}
bool exitDecode(Decoder&, const Stmt& st, Inst& in) {
  in.fn = st.op == "ret" ? &retOp : &exitOp;
  in.flags |= kfControl;
  in.cls = kControl;
  return true;
}
bool trapDecode(Decoder&, const Stmt&, Inst& in) {
  in.fn = &trapOp;
  in.flags |= kfControl;
  in.cls = kControl;
  return true;
}

bool callDecode(Decoder& dc, const Stmt& st, Inst& in) {
  // call{.uni} (rets), name, (args) | call name, (args) | call name
  const Operand* rets = nullptr;
  const Operand* args = nullptr;
  const Operand* callee = nullptr;
  for (auto& o : st.ops) {
    if (o.kind == Operand::List) { if (!callee) rets = &o; else if (!args) args = &o; }
    else if (!callee) callee = &o;
    else return dc.fail("indirect calls (prototypes) are not supported");
  }
  if (!callee || callee->kind != Operand::Sym) return dc.fail("indirect calls are not supported");
  int f = dc.func(callee->name);
  if (f < 0) return dc.fail("unknown function '" + callee->name + "'");
  const Function& fn = dc.prog().funcs[f];
  size_t nargs = args ? args->elems.size() : 0, nrets = rets ? rets->elems.size() : 0;
  if (nargs != fn.paramOffsets.size() || nrets > fn.retOffsets.size()) return dc.fail("argument count does not match");
  auto localOf = [&](const Operand& o, unsigned& off, unsigned& size) {
    if (!dc.localSym(o, off, size)) throw std::runtime_error("");
  };
  in.cls = kControl;
  try {
    if (fn.name == "vprintf" && fn.isExtern) {
      if (nargs != 2) return dc.fail("vprintf takes 2 arguments");
      unsigned r = ~0u, a0, a1, sz;
      if (nrets) localOf(rets->elems[0], r, sz);
      localOf(args->elems[0], a0, sz);
      localOf(args->elems[1], a1, sz);
      in.ext = dc.ext({r, a0, a1});
      in.fn = &vprintfOp;
      return true;
    }
    if (fn.name == "__assertfail" && fn.isExtern) {
      if (nargs != 5) return dc.fail("__assertfail takes 5 arguments");
      std::vector<uint32_t> offs;
      for (size_t i = 0; i < 5; i++) {
        unsigned off, size;
        localOf(args->elems[i], off, size);
        offs.push_back(off);
      }
      in.ext = dc.ext(offs);
      in.fn = &assertfailOp;
      return true;
    }
    std::vector<uint32_t> e{(uint32_t)f, (uint32_t)nargs};
    for (size_t i = 0; i < nargs; i++) {
      unsigned off, size;
      localOf(args->elems[i], off, size);
      e.insert(e.end(), {off, fn.paramOffsets[i], std::min(size, fn.paramSizes[i])});
    }
    in.ext = dc.ext(e);
    in.fn = &callOp;
    in.flags |= kfControl;
    Inst back;
    std::vector<uint32_t> r{(uint32_t)nrets};
    for (size_t i = 0; i < nrets; i++) {
      unsigned off, size;
      localOf(rets->elems[i], off, size);
      r.insert(r.end(), {off, fn.retOffsets[i], std::min(size, fn.retSizes[i])});
    }
    back.ext = dc.ext(r);
    back.fn = &retCopyOp;
    back.cls = kControl;
    dc.emitAfter.push_back(back);
  } catch (const std::runtime_error&) {
    return dc.fail("call arguments must be .param variables");
  }
  return true;
}

bool barDecode(Decoder& dc, const Stmt& st, Inst& in) {
  in.cls = kSync;
  if (st.op == "bar" && st.has("warp")) return decodeBarWarpSync(dc, st, in);
  if (st.op == "barrier" && st.has("cluster")) return decodeClusterBarrier(dc, st, in);
  if (st.op == "bar" || st.has("aligned")) in.flags |= kfAligned;  // bar = barrier.aligned
  if (st.has("red")) {
    int kind = st.has("popc") ? 0 : st.has("and") ? 1 : st.has("or") ? 2 : -1;
    if (kind < 0 || (st.ops.size() != 3 && st.ops.size() != 4)) return dc.fail("expected bar.red.{popc,and,or} d, a{, b}, {!}c");
    in.d[0] = dc.dst(st.ops[0]);
    in.s[0] = dc.src(st.ops[1], Ty::U32);
    in.s[1] = st.ops.size() == 4 ? dc.src(st.ops[2], Ty::U32) : 0;
    const Operand& pc = st.ops.back();
    in.s[2] = dc.src(pc, Ty::Pred);
    if (pc.neg) in.flags |= 0x100;
    dc.negHandled = true;
    if (in.d[0] == kSlotSink) return dc.fail("bar.red needs a destination");
    in.mode = (uint8_t)kind;
    in.fn = &barRedOp;
    in.flags |= kfControl;
    return true;
  }
  bool arrive = st.has("arrive");
  if (!arrive && !st.has("sync") && !(st.op == "barrier" && st.mods.empty()) && !(st.op == "bar" && st.mods.empty()))
    return dc.fail("only bar.sync/bar.arrive/barrier.sync are supported");
  for (auto& m : st.mods) if (m != "sync" && m != "arrive" && m != "aligned" && m != "cta") return dc.fail("modifier ." + m);
  if (st.ops.empty() || st.ops.size() > 2) return dc.fail("bad barrier operands");
  in.s[0] = dc.src(st.ops[0], Ty::U32);
  in.s[1] = st.ops.size() == 2 ? dc.src(st.ops[1], Ty::U32) : 0;
  in.mode = arrive ? 1 : 0;
  in.fn = &barOp;
  in.flags |= arrive ? 0 : kfControl;
  if (arrive) {
    // arrive: does not wait, so the normal pc advance applies; barOp returns through advance()
    in.flags |= kfControl;
  }
  return true;
}

bool nopDecode(Decoder&, const Stmt& st, Inst& in) {
  in.fn = st.op == "nanosleep" ? &nanosleepOp : &nopOp;
  in.cls = kOther;
  return true;
}

}  // namespace

void registerCtrlOps(DecodeTable& t) {
  addOp(t, "bra", braDecode, "uni", "");
  addOp(t, "brx", brxDecode, "idx uni", "an indirect branch: each lane to entry `index` of a `.branchtargets` list (an index past it is a named fault)");
  addOp(t, "exit", exitDecode, "", "");
  addOp(t, "ret", exitDecode, "uni", "");
  addOp(t, "trap", trapDecode, "", "");
  addOp(t, "call", callDecode, "uni", "direct calls; `vprintf`; `__assertfail` (a failed `assert`: CUDA_ERROR_ASSERT)");
  const std::string bar = "sync arrive red popc and or u32 pred aligned cta";
  addOp(t, "bar", barDecode, bar + " warp", "`bar.warp.sync` waits for the lanes of its membermask");
  addOp(t, "barrier", barDecode, bar + " cluster wait release acquire relaxed",
        "`barrier.cluster.arrive`/`.wait`: every non-exited thread of every CTA of the cluster (exited threads count as arrived)");
  addOp(t, "nanosleep", nopDecode, "u32", "yields the host thread");
  addOp(t, "pmevent", nopDecode, "mask", "no effect");
  // Grids of a stream run one after the other here, so a dependent grid's .wait has nothing left
  // to wait for and .launch_dependents (permission to start early) changes nothing.
  addOp(t, "griddepcontrol", [](Decoder& dc, const Stmt& st, Inst& in) {
    if (st.mods.size() != 1 || !st.ops.empty()) return dc.fail("expected griddepcontrol.{launch_dependents,wait}");
    in.fn = &nopOp;
    in.cls = kSync;
    return true;
  }, "launch_dependents wait", "no effect: grids of a stream run in order (sm_90)");
}

}  // namespace tsim
