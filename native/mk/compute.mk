# Compute limiter (issue 5): GCRA/share core, per-NPU registry, launch hooks, measurement thread.
# Its objects join libvnpu.so through COMPUTE_LIB_SRCS (see limiter.mk); the compute test preload
# below uses a test-only configuration source instead of the quota region.
COMPUTE_LIB_SRCS := limiter/compute_core.c limiter/compute_registry.c limiter/compute.c limiter/hooks_launch.c
COMPUTE_HDRS := include/vnpu_registry.h include/runtime/rt.h limiter/compute.h limiter/compute_core.h \
                limiter/compute_registry.h

$(B)/limiter/test_compute_core: limiter/tests/test_compute_core.c limiter/compute_core.c $(COMPUTE_HDRS) limiter/tests/check.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ilimiter -o $@ limiter/tests/test_compute_core.c limiter/compute_core.c $(LDFLAGS) $(LDLIBS)

$(B)/limiter/test_compute_registry: limiter/tests/test_compute_registry.c limiter/compute_registry.c limiter/compute_core.c $(COMPUTE_HDRS) limiter/tests/check.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ilimiter -o $@ limiter/tests/test_compute_registry.c limiter/compute_registry.c limiter/compute_core.c $(LDFLAGS) $(LDLIBS)

$(B)/limiter/registry_tool: limiter/tests/registry_tool.c $(COMPUTE_LIB_SRCS) limiter/tests/compute_env_config.c $(COMPUTE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ilimiter -o $@ limiter/tests/registry_tool.c limiter/compute_registry.c limiter/compute_core.c \
	  limiter/compute.c limiter/tests/compute_env_config.c $(LDFLAGS) $(LDLIBS)

$(B)/limiter/libvnpu-compute-test.so: $(COMPUTE_LIB_SRCS) limiter/tests/compute_env_config.c $(COMPUTE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ilimiter $(SOFLAGS) -o $@ $(COMPUTE_LIB_SRCS) limiter/tests/compute_env_config.c $(LDLIBS)

TARGETS += $(B)/limiter/test_compute_core $(B)/limiter/test_compute_registry $(B)/limiter/registry_tool \
           $(B)/limiter/libvnpu-compute-test.so
TESTS   += $(B)/limiter/test_compute_core $(B)/limiter/test_compute_registry limiter/tests/test_compute_sim.sh
