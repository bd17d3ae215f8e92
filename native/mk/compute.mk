# Compute limiter (issue 5): GCRA/share core, per-NPU registry, launch hooks, measurement thread.
# Its sources join libvnpu.so through COMPUTE_LIB_SRCS (used by limiter.mk, included after this file).
COMPUTE_LIB_SRCS := limiter/compute_core.c limiter/compute_gcra.c limiter/compute_registry.c limiter/compute.c limiter/hooks_launch.c \
                    limiter/elf_exports.c
COMPUTE_HDRS := include/vnpu_registry.h limiter/launch_abi.h limiter/compute.h limiter/compute_core.h limiter/compute_gcra.h \
                limiter/compute_registry.h limiter/elf_exports.h limiter/fork.h

$(B)/limiter/test_compute_core: limiter/tests/test_compute_core.c limiter/compute_core.c limiter/compute_gcra.c $(COMPUTE_HDRS) limiter/tests/check.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ilimiter -o $@ limiter/tests/test_compute_core.c limiter/compute_core.c limiter/compute_gcra.c $(LDFLAGS) $(LDLIBS)

# GCRA with debt on a fake clock (compute_gcra.h)
$(B)/limiter/test_compute_gcra: limiter/tests/test_compute_gcra.c limiter/compute_gcra.c $(COMPUTE_HDRS) limiter/tests/check.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ilimiter -o $@ limiter/tests/test_compute_gcra.c limiter/compute_gcra.c $(LDFLAGS) $(LDLIBS)

TARGETS += $(B)/limiter/test_compute_gcra
TESTS   += $(B)/limiter/test_compute_gcra
TSAN_TARGETS += $(B)/limiter/test_compute_gcra
TSAN_TESTS   += $(B)/limiter/test_compute_gcra

REGISTRY_TEST_SRCS := limiter/compute_registry.c limiter/compute_core.c limiter/compute_gcra.c limiter/safe_open.c limiter/tests/registry_agent.c
REGISTRY_TEST_HDRS := $(COMPUTE_HDRS) limiter/safe_open.h limiter/tests/registry_agent.h include/vnpu_region.h

$(B)/limiter/test_compute_registry: limiter/tests/test_compute_registry.c $(REGISTRY_TEST_SRCS) $(REGISTRY_TEST_HDRS) limiter/tests/check.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ilimiter -Ilimiter/tests -o $@ limiter/tests/test_compute_registry.c $(REGISTRY_TEST_SRCS) $(LDFLAGS) $(LDLIBS)

# creates/prints registries and creates quota regions with compute config (test tooling, debugging aid)
$(B)/limiter/registry_tool: limiter/tests/registry_tool.c $(REGISTRY_TEST_SRCS) $(REGISTRY_TEST_HDRS) \
                            limiter/region.c limiter/ptrmap.c limiter/region.h limiter/cpu_relax.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ilimiter -Ilimiter/tests -o $@ limiter/tests/registry_tool.c $(REGISTRY_TEST_SRCS) \
	  limiter/region.c limiter/ptrmap.c $(LDFLAGS) $(LDLIBS)

# constants for vnpu-quota's RegistryLayoutConformanceTest
$(B)/limiter/registry_offsets: limiter/tests/registry_offsets.c $(COMPUTE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ilimiter -o $@ limiter/tests/registry_offsets.c $(LDFLAGS) $(LDLIBS)

TARGETS += $(B)/limiter/test_compute_core $(B)/limiter/test_compute_registry $(B)/limiter/registry_tool \
           $(B)/limiter/registry_offsets
# test_compute_sim.sh preloads $(B)/libvnpu.so into $(B)/npu-burn (both in TARGETS)
TESTS   += $(B)/limiter/test_compute_core $(B)/limiter/test_compute_registry limiter/tests/test_compute_sim.sh \
           limiter/tests/test_tenant_isolation.sh
TSAN_TARGETS += $(B)/limiter/test_compute_core $(B)/limiter/test_compute_registry
TSAN_TESTS   += $(B)/limiter/test_compute_core $(B)/limiter/test_compute_registry

# launch patterns driven by test_compute_sim.sh (model-destroy, stream reuse, contexts, resets, key churn)
$(B)/limiter/compute_patterns: limiter/tests/compute_patterns.c $(B)/libascendcl.so $(B)/libruntime.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) -L$(B) -lascendcl -lruntime -Wl,-rpath,'$$ORIGIN/..' $(LDLIBS)

TARGETS += $(B)/limiter/compute_patterns

# a runtime-named library exporting an unhooked launch entry point (test_compute_sim.sh)
$(B)/limiter/libruntime.so.unhooked-test: limiter/tests/unhooked_runtime.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SOFLAGS) -o $@ $< $(LDLIBS)

TARGETS += $(B)/limiter/libruntime.so.unhooked-test

# accuracy suite (issue 23): every share against the simulator's ground truth, scenarios in parallel
ACCURACY_TESTS += limiter/tests/test_compute_accuracy.sh
