# The limiter libvnpu.so (LD_PRELOAD / ld.so.preload), its layout printer and its native tests.
LIMITER_CORE := limiter/region.c limiter/ptrmap.c limiter/safe_open.c
LIMITER_HDRS := include/vnpu_region.h limiter/region.h limiter/ptrmap.h limiter/safe_open.h limiter/cpu_relax.h
LIMITER_SRCS := $(LIMITER_CORE) limiter/config.c limiter/hooks.c limiter/fork.c limiter/dlopen.c $(COMPUTE_LIB_SRCS) limiter/compute_config.c
LIMITER_ALL_HDRS := $(LIMITER_HDRS) limiter/config.h limiter/cann_abi.h $(COMPUTE_HDRS)

# Only the hooked rt* symbols are exported (-fvisibility=hidden + EXPORT), so the limiter's helpers
# never clash with the application's symbols. Links only libc, libpthread, libdl.
# Link-time optimisation lets the hooks inline the region's and the pointer table's fast paths
# across files: about 40 instructions less per hooked alloc+free pair (issue 23/29, counted with
# cachegrind: docs/benchmarks.md).
LIMITER_LTO ?= -flto=auto
$(B)/libvnpu.so: $(LIMITER_SRCS) $(LIMITER_ALL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LIMITER_LTO) -fvisibility=hidden $(SOFLAGS) -Wl,-soname,libvnpu.so -o $@ $(LIMITER_SRCS) $(LDLIBS)

TARGETS += $(B)/libvnpu.so

$(B)/limiter/region_offsets: limiter/region_offsets.c include/vnpu_region.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) $(LDLIBS)

$(B)/limiter/test_region: limiter/tests/test_region.c $(LIMITER_CORE) $(LIMITER_HDRS) limiter/tests/check.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ limiter/tests/test_region.c $(LIMITER_CORE) $(LDFLAGS) $(LDLIBS)

$(B)/limiter/test_ptrmap: limiter/tests/test_ptrmap.c $(LIMITER_CORE) $(LIMITER_HDRS) limiter/tests/check.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ limiter/tests/test_ptrmap.c $(LIMITER_CORE) $(LDFLAGS) $(LDLIBS)

TARGETS += $(B)/limiter/region_offsets $(B)/limiter/test_region $(B)/limiter/test_ptrmap
TESTS   += $(B)/limiter/test_region $(B)/limiter/test_ptrmap

# driven by vnpu-quota's JUnit tests (Java <-> C interoperation on one region)
$(B)/limiter/region_client: limiter/tests/region_client.c $(LIMITER_CORE) $(LIMITER_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ limiter/tests/region_client.c $(LIMITER_CORE) $(LDFLAGS) $(LDLIBS)

TARGETS += $(B)/limiter/region_client

# end to end on the simulated CANN runtime (preloads $(B)/libvnpu.so into $(B)/npu-burn)
TESTS   += limiter/tests/test_limiter.sh

# micro-benchmark of the hooked allocation path (not a test: compare with and without LD_PRELOAD)
$(B)/limiter/bench_alloc: limiter/bench/bench_alloc.c $(B)/libruntime.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) -L$(B) -lruntime -Wl,-rpath,'$$ORIGIN/..' $(LDLIBS)

TARGETS += $(B)/limiter/bench_alloc

# the floor under the Java full-region usage snapshot (docs/benchmarks.md; not a test)
$(B)/limiter/bench_usage_scan: limiter/bench/bench_usage_scan.c include/vnpu_region.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O2 -o $@ $< $(LDFLAGS) $(LDLIBS)

TARGETS += $(B)/limiter/bench_usage_scan

# fork stress (issue 12): the limiter compiled into the test program, so the same test runs plain,
# under ASan+UBSan and under ThreadSanitizer (TSAN_TESTS, `make test-tsan`)
$(B)/limiter/test_fork_stress: limiter/tests/test_fork_stress.c $(LIMITER_SRCS) $(LIMITER_ALL_HDRS) limiter/fork.h $(B)/libruntime.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ilimiter -o $@ limiter/tests/test_fork_stress.c $(LIMITER_SRCS) $(LDFLAGS) \
	  -L$(B) -lruntime -Wl,-rpath,'$$ORIGIN/..' $(LDLIBS)

TARGETS += $(B)/limiter/test_fork_stress
TESTS   += limiter/tests/test_fork.sh
TSAN_TARGETS += $(B)/limiter/test_fork_stress $(B)/limiter/registry_tool
TSAN_TESTS   += limiter/tests/test_fork.sh

# live resize (issue 28): quota and share rewritten while the workload runs; the limiter compiled in
# (plain, ASan+UBSan, ThreadSanitizer: the measurement thread re-reads the compute config)
$(B)/limiter/test_resize: limiter/tests/test_resize.c $(LIMITER_SRCS) $(LIMITER_ALL_HDRS) limiter/tests/check.h $(B)/libruntime.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ilimiter -Ilimiter/tests -o $@ limiter/tests/test_resize.c $(LIMITER_SRCS) $(LDFLAGS) \
	  -L$(B) -lruntime -Wl,-rpath,'$$ORIGIN/..' $(LDLIBS)

TARGETS += $(B)/limiter/test_resize
TESTS   += limiter/tests/test_resize.sh
TSAN_TARGETS += $(B)/limiter/test_resize
TSAN_TESTS   += limiter/tests/test_resize.sh

# memory accounting edge cases (issue 12): preloaded like a workload; links the region code for its
# slot-holding helper mode
$(B)/limiter/test_memory_edges: limiter/tests/test_memory_edges.c $(LIMITER_CORE) $(LIMITER_HDRS) $(B)/libruntime.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ limiter/tests/test_memory_edges.c $(LIMITER_CORE) $(LDFLAGS) -L$(B) -lruntime \
	  -Wl,-rpath,'$$ORIGIN/..' $(LDLIBS)

TARGETS += $(B)/limiter/test_memory_edges
TESTS   += limiter/tests/test_memory_edges.sh

# issue 23: a tenant fills the file system every region lives on (root: private mount namespace);
# over-commit stress with SIGSTOP snapshots of the simulator's ground truth and kill -9
TESTS   += limiter/tests/test_full_fs.sh limiter/tests/test_overcommit.sh

# issue 23: RTLD_DEEPBIND (dlopen.c); the plugin calls the runtime directly, the program opens
# everything by bare name along its RUNPATH
$(B)/limiter/libdeepplugin.so: limiter/tests/deep_plugin.c $(B)/libruntime.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SOFLAGS) -o $@ $< -L$(B) -lruntime -Wl,-rpath,'$$ORIGIN/..' $(LDLIBS)

$(B)/limiter/test_deepbind: limiter/tests/test_deepbind.c $(B)/limiter/libdeepplugin.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) -Wl,--enable-new-dtags,-rpath,'$$ORIGIN/..:$$ORIGIN' $(LDLIBS)

TARGETS += $(B)/limiter/libdeepplugin.so $(B)/limiter/test_deepbind
TESTS   += limiter/tests/test_deepbind.sh

# an allocation too large for the pointer table's packed entries, granted by a tenant's own runtime
$(B)/limiter/libhuge_runtime.so: limiter/tests/huge_runtime.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SOFLAGS) -o $@ $<

$(B)/limiter/huge_alloc: limiter/tests/huge_alloc.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) $(LDLIBS)

TARGETS += $(B)/limiter/libhuge_runtime.so $(B)/limiter/huge_alloc
TESTS   += limiter/tests/test_huge_alloc.sh

# the hooked alloc+free pair's rare paths (issue 23): unknown frees, a replaced key, a failing real
# free, pointer-table growth; on the same tenant-style runtime
$(B)/limiter/hook_edges: limiter/tests/hook_edges.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) $(LDLIBS)

TARGETS += $(B)/limiter/hook_edges
TESTS   += limiter/tests/test_hook_edges.sh
