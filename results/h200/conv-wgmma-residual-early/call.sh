#!/usr/bin/env bash
# Session 26 call 1 (no build): branch resprefetch's wgmma conv kernel (the residual fetched at the
# start of a work item, before its main loop) against the after-the-loop fetch (the *late twins):
# kernel test, bench-out bf16 (two configs) and fp16 (one), ncu on the short-K 1x1 layers.
set -u
R=/tmp/c1; mkdir -p $R; SECONDS=0
cd .carry/s26
pack() { tar czf $OUT/call1.tar.gz -C $R .; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/nvidia-smi.txt
EP=out16fused,out16fusedres,out16fusedreslate,f32epires,f32epireslate
KTUNE_PREC=2 KTUNE_EPILOGUES=$EP timeout 110 ./wgmma_conv_check bench-out layers.csv \
  "ht=8;wt=16;nb=1;bn=64;st=6" "ht=8;wt=8;nb=2;bn=128;st=4" > $R/bench-out-bf16.csv 2> $R/bench-out-bf16.err
echo "[$SECONDS s] bench-out bf16 exit $? ($(grep -c ',ok$' $R/bench-out-bf16.csv) ok, $(grep -c ',wrong$' $R/bench-out-bf16.csv) wrong)" >> $R/phases.log
pack
KTUNE_PREC=3 KTUNE_EPILOGUES=$EP timeout 60 ./wgmma_conv_check bench-out layers.csv \
  "ht=8;wt=16;nb=1;bn=64;st=6" > $R/bench-out-fp16.csv 2> $R/bench-out-fp16.err
echo "[$SECONDS s] bench-out fp16 exit $? ($(grep -c ',ok$' $R/bench-out-fp16.csv) ok, $(grep -c ',wrong$' $R/bench-out-fp16.csv) wrong)" >> $R/phases.log
pack
timeout 150 ./wgmma_conv_check test > $R/kernel-test.log 2>&1
echo "[$SECONDS s] kernel test exit $? ($(grep -c PASS $R/kernel-test.log) PASS, $(grep -c FAIL $R/kernel-test.log) FAIL)" >> $R/phases.log
gzip -f $R/kernel-test.log; pack
KTUNE_PREC=2 KTUNE_BATCHES=1 KTUNE_REPS=2 KTUNE_EPILOGUES=out16fusedres,out16fusedreslate,out16plain,none timeout 150 ncu --clock-control none \
  --csv --page raw --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed.sum,launch__registers_per_thread,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpc__cycles_elapsed.max,launch__grid_size \
  --section WarpStateStats --kernel-name regex:ktune_conv2d_wgmma \
  ./wgmma_conv_check bench-out ncu_layers.csv "ht=8;wt=8;nb=2;bn=128;st=4" > $R/ncu-shortk.csv 2> $R/ncu.err
echo "[$SECONDS s] ncu exit $?" >> $R/phases.log
gzip -f $R/ncu-shortk.csv; pack; cat $R/phases.log
