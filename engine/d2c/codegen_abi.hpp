// ddsmc compiled-step ABI, version 2 (see engine/d2c/codegen.hpp).
// Plain structs shared by ddsmc and the C++ it generates for a model's step
// function; codegen.cpp embeds this exact text at the top of every
// generated file (the build makes its string literal from this header,
// engine/CMakeLists.txt), so the generated code includes no ddsmc header.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ddsmc_gen {

// One step of one node; words as in engine::StepInput.
struct Input {
  uint32_t node;             // the processing node
  uint32_t msg_src;          // the node the message comes from
  const uint32_t* db;        // the node's DB: [pred, args...]*, normalized, built-ins excluded
  size_t db_words;
  const uint32_t* msg;       // the transport fact [pred, args...]
  const uint32_t* input;     // the input DB: [pred, args...]*, normalized
  size_t input_words;
};

// One outcome, as engine::StepResult.
struct Result {
  std::vector<uint32_t> db, sent, dropped;
};

struct Hooks {
  void (*emit)(void* ctx, Result& r);  // once per choice outcome
  void* emit_ctx;
  void (*poll)(void* ctx);  // may throw (cancellation); called every 1024 join steps and inserts
  void* poll_ctx;
};

}  // namespace ddsmc_gen

extern "C" {
uint32_t ddsmc_gen_abi_version();
void* ddsmc_gen_new();
void ddsmc_gen_free(void* state);
void ddsmc_gen_step(void* state, const ddsmc_gen::Input* in, const ddsmc_gen::Hooks* hooks);
// The fingerprint (32 hex digits) of the generated text that precedes its
// definition, which compiled_step.cpp appends: a loaded object proves with
// it which source it was built from (version 2).
const char* ddsmc_gen_source_fingerprint();
}
