# The limiter libvnpu.so (LD_PRELOAD / ld.so.preload), its layout printer and its native tests.
LIMITER_CORE := limiter/region.c limiter/ptrmap.c
LIMITER_HDRS := include/vnpu_region.h limiter/region.h limiter/ptrmap.h

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
