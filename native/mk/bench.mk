# vnpu-bench: per-call cost of the limiter (hooked vs plain, against HAMi-style baselines) and admission
# under contention; JSON on stdout. Full run: bench/run-bench.sh; `make test` runs the --smoke mode.
# Paths are spelled out: this fragment is read before limiter.mk and cann-sim.mk define their variables.
BENCH_SRCS := bench/vnpu-bench.c limiter/region.c limiter/ptrmap.c limiter/safe_open.c
BENCH_HDRS := include/vnpu_region.h limiter/region.h limiter/ptrmap.h limiter/cpu_relax.h include/runtime/rt.h \
              include/cann_sim/cann_sim.h

$(B)/bench/vnpu-bench: $(BENCH_SRCS) $(BENCH_HDRS) $(B)/libruntime.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(BENCH_SRCS) $(LDFLAGS) -L$(B) -lruntime -Wl,-rpath,'$$ORIGIN/..' $(LDLIBS)

TARGETS += $(B)/bench/vnpu-bench
TESTS   += bench/tests/test_bench_smoke.sh
