# Sourced by the device scripts that run carried binaries (onnx_gpu_run.sh,
# precision_gpu_run.sh) with $C (the carried folder) and $W (the work folder) set: logs of the
# whole script to $OUT/run.log, the binaries of $C/bin.tar.gz unpacked into $W (bin/, lib/),
# LD_LIBRARY_PATH for them (cuDNN: the device's own, PyTorch's nvidia wheels, as
# gpu_build_remote.sh does), the GPU and PyTorch named; SECONDS counts from here.
exec > >(tee $OUT/run.log) 2>&1
SECONDS=0
tar xzf $C/bin.tar.gz -C $W || exit 1
export LD_LIBRARY_PATH="$W/lib:/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib"
for d in $(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, q, "lib") for p in nvidia.__path__ for q in os.listdir(p)))' 2>/dev/null); do
  [ -d "$d" ] && LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
done
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -c 'import torch, torchvision; print("torch", torch.__version__, "torchvision", torchvision.__version__, "cudnn", torch.backends.cudnn.version())'
