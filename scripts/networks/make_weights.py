#!/usr/bin/env python3
"""Writes torchvision VGG16 / ResNet-50 weights and seeded inputs to safetensors (run where
torch and torchvision are installed; no download: torchvision's own seeded random init).

Weights: torch.manual_seed(seed), torchvision.models.<net>(weights=None), then every bias,
batch-norm weight/bias and running mean/variance is drawn at random too (torchvision's init
leaves them 0/1, which would not test bias handling or batch-norm folding). Tensors are the
model's state_dict (torchvision names, PyTorch layouts: conv OIHW, linear [out][in]) as F32;
BatchNorm's num_batches_tracked (int64, unused in eval) is left out.
Inputs: for each seed, `input` [batch, 3, 224, 224] NCHW F32, standard normal.

  make_weights.py --network vgg16 --out vgg16.safetensors
  make_weights.py --inputs 1 2 3 --batch 2 --out-dir inputs/
"""
import argparse
import os

import torch
import torchvision

NETWORKS = {"vgg16": torchvision.models.vgg16, "resnet50": torchvision.models.resnet50}


def build(network, seed):
    """The seeded model in eval mode, every parameter and buffer non-trivial."""
    torch.manual_seed(seed)
    model = NETWORKS[network](weights=None)
    gen = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, (torch.nn.Conv2d, torch.nn.Linear)) and module.bias is not None:
                module.bias.copy_(torch.empty_like(module.bias).uniform_(-0.1, 0.1, generator=gen))
            if isinstance(module, torch.nn.BatchNorm2d):
                module.weight.copy_(torch.empty_like(module.weight).uniform_(0.5, 1.5, generator=gen))
                module.bias.copy_(torch.empty_like(module.bias).uniform_(-0.1, 0.1, generator=gen))
                module.running_mean.copy_(
                    torch.empty_like(module.running_mean).uniform_(-0.1, 0.1, generator=gen))
                module.running_var.copy_(
                    torch.empty_like(module.running_var).uniform_(0.5, 1.5, generator=gen))
    return model.eval()


def state_tensors(model):
    return {name: t.detach().float().contiguous().cpu()
            for name, t in model.state_dict().items() if not name.endswith("num_batches_tracked")}


def save(path, tensors, metadata):
    try:
        from safetensors.torch import save_file
        save_file(tensors, path, metadata={k: str(v) for k, v in metadata.items()})
    except ImportError:  # the format by hand (scripts/networks/safetensors_io.py)
        import safetensors_io
        safetensors_io.write(path, {n: ("F32", list(t.shape), t.numpy().tobytes())
                                    for n, t in tensors.items()}, metadata)


def make_input(seed, batch):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(batch, 3, 224, 224, generator=gen)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--network", choices=sorted(NETWORKS))
    parser.add_argument("--seed", type=int, default=0, help="weight seed")
    parser.add_argument("--out", help="weights file (.safetensors)")
    parser.add_argument("--inputs", type=int, nargs="*", default=[], help="input seeds")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--out-dir", default=".")
    args = parser.parse_args()
    if args.network:
        if not args.out:
            parser.error("--network needs --out")
        save(args.out, state_tensors(build(args.network, args.seed)),
             {"network": args.network, "seed": args.seed, "torchvision": torchvision.__version__})
    for seed in args.inputs:
        os.makedirs(args.out_dir, exist_ok=True)
        save(os.path.join(args.out_dir, f"input-{seed}.safetensors"),
             {"input": make_input(seed, args.batch)}, {"seed": seed, "layout": "NCHW"})


if __name__ == "__main__":
    main()
