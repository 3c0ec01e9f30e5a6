#!/usr/bin/env python3
"""Writes a tiny random Llama checkpoint with Hugging Face transformers, and transformers' own answers
for it, so that examples/llm can be checked against the real thing (test/examples/llm.test.ts).

  .venv/bin/python scripts/llm/tiny_llama.py OUT_DIR [--dtype f32|f16|bf16] [--tie] [--rope-scaling llama3]
        [--shards N] [--prompt 1,2,3] [--new-tokens 16] [--seed 0]
  .venv/bin/python scripts/llm/tiny_llama.py --variants OUT_ROOT NAME=ARGS... (several checkpoints from one
        torch import, e.g. f16="--dtype f16" tied="--tie --rope-scaling llama3 --shards 2")

OUT_DIR gets config.json + model.safetensors (or N shards + model.safetensors.index.json), written by
save_pretrained, and reference.json: {"prompt", "logits" (prompt rows x vocab, f32, from the model in the
saved dtype computed in f32 -- see below), "greedy" (the new tokens of greedy generate), "dtype",
"inv_freq" (RoPE's inverse frequencies, after rope scaling)}.
The logits are those of the saved weights run in f32 (the weights are rounded to --dtype first), so they
isolate our arithmetic from the checkpoint's rounding.
"""
import argparse, json, os, sys

import torch
from transformers import LlamaConfig, LlamaForCausalLM

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--variants":
        root = sys.argv[2]
        for spec in sys.argv[3:]:
            name, _, args = spec.partition("=")
            write(parse([os.path.join(root, name)] + args.split()))
        return
    write(parse(sys.argv[1:]))


def parse(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--dtype", default="f32", choices=DTYPES)
    ap.add_argument("--tie", action="store_true")
    ap.add_argument("--rope-scaling", default=None, choices=[None, "llama3"])
    ap.add_argument("--shards", type=int, default=1)
    ap.add_argument("--prompt", default="1,7,42,200,3,99,128,5")
    ap.add_argument("--new-tokens", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    return ap.parse_args(argv)


def write(a) -> None:
    torch.manual_seed(a.seed)
    rope = {"rope_type": "default", "rope_theta": 10000.0}
    if a.rope_scaling == "llama3":
        # small original_max_position_embeddings so the scaling touches this model's frequencies
        rope = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
                "high_freq_factor": 4.0, "original_max_position_embeddings": 64}
    cfg = LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                      rms_norm_eps=1e-5, tie_word_embeddings=a.tie, rope_parameters=rope,
                      bos_token_id=1, eos_token_id=2, pad_token_id=0)
    model = LlamaForCausalLM(cfg).eval()
    # larger random weights than the default init (std 0.02), so that logits differ clearly between
    # tokens and greedy decoding has no near-ties
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() > 1:
                p.normal_(0.0, 0.15)
            else:
                p.copy_(1.0 + 0.1 * torch.randn_like(p))
    model = model.to(DTYPES[a.dtype])
    os.makedirs(a.out, exist_ok=True)
    shard = None
    if a.shards > 1:
        total = sum(p.numel() * p.element_size() for p in model.parameters())
        shard = max(1, total // a.shards + 1)
    model.save_pretrained(a.out, safe_serialization=True, **({"max_shard_size": shard} if shard else {}))
    ref = model.float()
    prompt = [int(t) for t in a.prompt.split(",")]
    ids = torch.tensor([prompt])
    with torch.no_grad():
        logits = ref(ids).logits[0].float()
        out = ref.generate(ids, max_new_tokens=a.new_tokens, do_sample=False, num_beams=1,
                           pad_token_id=0, attention_mask=torch.ones_like(ids))
    greedy = out[0, len(prompt):].tolist()
    with open(os.path.join(a.out, "reference.json"), "w") as f:
        json.dump({"prompt": prompt, "dtype": a.dtype, "logits": logits.tolist(), "greedy": greedy,
                   "inv_freq": ref.model.rotary_emb.inv_freq.float().tolist()}, f)
    print(json.dumps({"out": a.out, "files": sorted(os.listdir(a.out)), "greedy": greedy}))


if __name__ == "__main__":
    sys.exit(main())
