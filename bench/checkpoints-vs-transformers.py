#!/usr/bin/env python3
"""irserve's graphs built from checkpoints against Hugging Face transformers itself.

For a machine whose Python has `torch`, `transformers` (4.51 or later, for Qwen3) and
`tokenizers` (GPU machines usually do; a CPU is enough):

    npm run build
    python3 bench/checkpoints-vs-transformers.py [--dir DIR] [--keep]

For each architecture it makes a small random-weight model with `AutoModel...from_config`
(weights drawn at a scale that makes differences visible, not transformers' 0.02), writes it
with `save_pretrained` (safetensors; plus float16, bfloat16, pytorch_model.bin and sharded
copies of some), reloads each folder with `from_pretrained(..., torch_dtype=float32)` and runs
every head on each row alone, unpadded. Then `bench/checkpoints-vs-transformers.mjs` builds
irserve's graph of each folder and head, runs the rows as one padded batch (right padding,
left for decoders), and prints the largest absolute difference per architecture and head.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import torch
import transformers as T
from tokenizers import Tokenizer, models, pre_tokenizers

HERE = os.path.dirname(os.path.abspath(__file__))
VOCAB = 120
LENGTHS = [9, 4, 13]
SMALL = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37,
             max_position_embeddings=64, vocab_size=VOCAB)
QWEN = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=48, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256, pad_token_id=0)
T5_SIZES = dict(vocab_size=VOCAB, d_model=32, d_kv=12, num_heads=3, d_ff=40, num_layers=2,
                num_decoder_layers=3, relative_attention_num_buckets=8, relative_attention_max_distance=12,
                decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)


class HFColBERT(T.BertPreTrainedModel):
    """ColBERT's checkpoint layout (colbert-ir/colbertv2.0): a BERT and a bias-free `linear`."""

    def __init__(self, config):
        super().__init__(config)
        self.bert = T.BertModel(config, add_pooling_layer=False)
        self.linear = torch.nn.Linear(config.hidden_size, 24, bias=False)
        self.post_init()


def encoders():
    """(name, model class, config, heads, token types?)"""
    bert = T.BertConfig(**SMALL, type_vocab_size=2, num_labels=1)
    roberta = T.RobertaConfig(**{**SMALL, "max_position_embeddings": 66}, pad_token_id=1, bos_token_id=0,
                              eos_token_id=2, type_vocab_size=1, num_labels=1)
    xlmr = T.XLMRobertaConfig(**{**SMALL, "max_position_embeddings": 66}, pad_token_id=1, bos_token_id=0,
                              eos_token_id=2, type_vocab_size=1, num_labels=1, hidden_act="gelu_new")
    electra = T.ElectraConfig(**SMALL, embedding_size=16, num_labels=1)
    distil = T.DistilBertConfig(vocab_size=VOCAB, dim=32, n_layers=2, n_heads=4, hidden_dim=37,
                                max_position_embeddings=64, num_labels=1)
    cases = []
    for name, cfg, mlm, cls, types in [
        ("bert", bert, T.BertForMaskedLM, T.BertForSequenceClassification, True),
        ("roberta", roberta, T.RobertaForMaskedLM, T.RobertaForSequenceClassification, False),
        ("xlm-roberta", xlmr, T.XLMRobertaForMaskedLM, T.XLMRobertaForSequenceClassification, False),
        ("electra", electra, T.ElectraForMaskedLM, T.ElectraForSequenceClassification, True),
        ("distilbert", distil, T.DistilBertForMaskedLM, T.DistilBertForSequenceClassification, False),
    ]:
        cases.append((name, mlm, cfg, ["hidden", "masked-lm"], types))
        cases.append((name, cls, cfg, ["classifier"], types))
    cases.append(("colbert", HFColBERT, bert, ["colbert"], True))
    return cases


def decoders():
    qwen3 = T.Qwen3Config(**QWEN, head_dim=16, tie_word_embeddings=False, num_labels=1)
    qwen2 = T.Qwen2Config(**QWEN, tie_word_embeddings=True, num_labels=1)
    return [("qwen3", T.Qwen3ForCausalLM, qwen3, ["hidden", "next-token"], False),
            ("qwen3", T.Qwen3ForSequenceClassification, qwen3, ["classifier"], False),
            ("qwen2", T.Qwen2ForCausalLM, qwen2, ["hidden", "next-token"], False)]


def seq2seq():
    t5 = T.T5Config(**T5_SIZES, feed_forward_proj="relu", tie_word_embeddings=True)
    mt5 = T.MT5Config(**{**T5_SIZES, "d_kv": 8, "num_heads": 4, "relative_attention_num_buckets": 32,
                         "relative_attention_max_distance": 128}, feed_forward_proj="gated-gelu",
                      tie_word_embeddings=False)
    return [("t5", T.T5ForConditionalGeneration, t5, ["first-step"], False),
            ("mt5", T.MT5ForConditionalGeneration, mt5, ["first-step"], False)]


def visible_weights(model, seed):
    """Weights at the scale a trained model has (1/sqrt(fan-in)), norms near 1, small biases."""
    gen = torch.Generator().manual_seed(seed)
    for name, p in model.named_parameters():
        if p.dim() >= 2:
            p.data = torch.randn(p.shape, generator=gen) / math.sqrt(p.shape[-1])
        elif "norm" in name.lower() and name.endswith("weight"):
            p.data = 1 + 0.1 * torch.randn(p.shape, generator=gen)
        else:
            p.data = 0.1 * torch.randn(p.shape, generator=gen)


def write_tokenizer(folder):
    """A WordPiece tokenizer.json over the vocabulary (irserve needs one; the rows are ids)."""
    vocab = {f"w{i}": i for i in range(VOCAB)}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="w0"))
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.save(os.path.join(folder, "tokenizer.json"))


def rows_for(cfg, types):
    gen = torch.Generator().manual_seed(5)
    rows = []
    for i, n in enumerate(LENGTHS):
        ids = torch.randint(3, VOCAB, (n,), generator=gen).tolist()
        rows.append({"ids": ids, "types": ([0] * (n // 2) + [1] * (n - n // 2)) if types and i == 0 else [0] * n})
    return rows


@torch.no_grad()
def run_row(model, cfg, head, row, types):
    ids = torch.tensor([row["ids"]])
    mask = torch.ones_like(ids)
    extra = {"token_type_ids": torch.tensor([row["types"]])} if types else {}
    if head == "hidden":
        return model.base_model(input_ids=ids, attention_mask=mask, **extra)[0][0]
    if head == "colbert":
        return model.linear(model.bert(input_ids=ids, attention_mask=mask, **extra)[0])[0]
    if head == "first-step":
        start = torch.tensor([[cfg.decoder_start_token_id]])
        return model(input_ids=ids, attention_mask=mask, decoder_input_ids=start).logits[0, 0]
    logits = model(input_ids=ids, attention_mask=mask, **extra).logits[0]
    return logits[-1] if head == "next-token" else logits


def storage_variants(name):
    if name == "bert":
        return ["safetensors", "float16", "bfloat16", "pytorch_model.bin", "sharded"]
    if name == "qwen3":
        return ["safetensors", "bfloat16"]
    if name == "t5":
        return ["safetensors", "pytorch_model.bin"]
    return ["safetensors"]


def save(model, folder, variant):
    if variant in ("float16", "bfloat16"):
        model = model.to(getattr(torch, variant))
    model.save_pretrained(folder, safe_serialization=variant != "pytorch_model.bin",
                          **({"max_shard_size": "100KB"} if variant == "sharded" else {}))
    write_tokenizer(folder)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", help="write the folders here (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    work = args.dir or tempfile.mkdtemp(prefix="irserve-vs-transformers-")
    os.makedirs(work, exist_ok=True)
    cases = []
    try:
        for seed, (name, cls, cfg, heads, types) in enumerate(encoders() + decoders() + seq2seq(), start=1):
            torch.manual_seed(seed)
            model = cls(cfg).eval()
            visible_weights(model, seed)
            for variant in storage_variants(name):
                folder = os.path.join(work, f"{name}-{cls.__name__}-{variant}")
                shutil.rmtree(folder, ignore_errors=True)
                save(model, folder, variant)
                reloaded = cls.from_pretrained(folder, torch_dtype=torch.float32).eval()
                rows = rows_for(cfg, types)
                for head in heads:
                    want = [run_row(reloaded, cfg, head, row, types).flatten().tolist() for row in rows]
                    cases.append({"architecture": name, "class": cls.__name__, "variant": variant,
                                  "folder": folder, "head": head, "rows": rows, "expected": want,
                                  "pad": cfg.pad_token_id if cfg.pad_token_id is not None else 0,
                                  "side": "left" if name.startswith("qwen") else "right"})
        manifest = os.path.join(work, "cases.json")
        with open(manifest, "w") as f:
            json.dump({"transformers": T.__version__, "torch": torch.__version__, "cases": cases}, f)
        script = os.path.join(HERE, "checkpoints-vs-transformers.mjs")
        sys.exit(subprocess.call(["node", script, manifest]))
    finally:
        if not args.dir and not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
