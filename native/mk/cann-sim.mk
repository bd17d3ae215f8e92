# Simulated CANN runtime: libruntime.so (rt*), libascendcl.so (acl*, calls rt* through the PLT),
# the npu-burn test workload, the cann-sim-busy ground-truth reader and their tests.
# See cann-sim/README.md.
CANN_SIM_HDRS := include/runtime/rt.h include/acl/acl.h include/cann_sim/cann_sim.h \
                 include/vnpu_sim_host.h cann-sim/sim_internal.h
CANN_SIM_RT_SRCS := cann-sim/sim_state.c cann-sim/rt_context.c cann-sim/rt_mem.c cann-sim/rt_stream.c

# -Bsymbolic-functions: calls between rt* functions inside the library bind locally, so a hook on
# one entry point never sees a second, nested call (e.g. rtModelExecuteSync -> rtModelExecute).
$(B)/libruntime.so: $(CANN_SIM_RT_SRCS) $(B)/sim-common/sim_host.o $(CANN_SIM_HDRS) cann-sim/libruntime.map
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SOFLAGS) -Wl,-soname,libruntime.so -Wl,-Bsymbolic-functions \
	  -Wl,--version-script=cann-sim/libruntime.map -o $@ \
	  $(CANN_SIM_RT_SRCS) $(B)/sim-common/sim_host.o $(LDLIBS)

$(B)/libascendcl.so: cann-sim/acl.c $(B)/libruntime.so $(CANN_SIM_HDRS)
	$(CC) $(CFLAGS) $(SOFLAGS) -Wl,-soname,libascendcl.so -o $@ cann-sim/acl.c \
	  -L$(B) -lruntime -Wl,-rpath,'$$ORIGIN' $(LDLIBS)

$(B)/npu-burn: cann-sim/npu_burn.c $(B)/libascendcl.so $(B)/libruntime.so $(CANN_SIM_HDRS)
	$(CC) $(CFLAGS) -o $@ cann-sim/npu_burn.c $(LDFLAGS) -L$(B) -lascendcl -lruntime \
	  -Wl,-rpath,'$$ORIGIN' $(LDLIBS)

$(B)/cann-sim-busy: cann-sim/sim_busy.c $(B)/sim-common/sim_host.o $(CANN_SIM_HDRS)
	$(CC) $(CFLAGS) -o $@ cann-sim/sim_busy.c $(B)/sim-common/sim_host.o $(LDFLAGS) $(LDLIBS)

$(B)/cann-sim/test_rt_mem: cann-sim/tests/test_rt_mem.c $(B)/libruntime.so $(CANN_SIM_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) -L$(B) -lruntime -Wl,-rpath,'$$ORIGIN/..' $(LDLIBS)

$(B)/cann-sim/test_rt_time: cann-sim/tests/test_rt_time.c $(B)/libruntime.so $(CANN_SIM_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) -L$(B) -lruntime -Wl,-rpath,'$$ORIGIN/..' $(LDLIBS)

$(B)/cann-sim/libtesthook.so: cann-sim/tests/test_hook.c $(CANN_SIM_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SOFLAGS) -o $@ $< $(LDLIBS)

TARGETS += $(B)/cann-sim/libtesthook.so
TARGETS += $(B)/libruntime.so $(B)/libascendcl.so $(B)/npu-burn $(B)/cann-sim-busy \
           $(B)/cann-sim/test_rt_mem $(B)/cann-sim/test_rt_time
TESTS   += $(B)/cann-sim/test_rt_mem $(B)/cann-sim/test_rt_time \
           cann-sim/tests/test_npu_burn.sh
