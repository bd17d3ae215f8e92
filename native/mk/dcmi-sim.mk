# Simulated libdcmi.so (real soname, symbols, structs and return codes), its control tool
# vnpu-sim-ctl, the ABI dump the Java ABI test compares against, a "old driver" variant lacking
# optional symbols, and the native tests.
DCMI_SIM_SRC := dcmi-sim/dcmi_sim.c dcmi-sim/sim_state.c dcmi-sim/sim_devnodes.c
DCMI_SIM_HDR := include/dcmi_interface_api.h include/vnpu_sim_host.h dcmi-sim/sim_state.h dcmi-sim/sim_devnodes.h
DCMI_SIM_CFLAGS := $(CFLAGS) -Idcmi-sim -fvisibility=hidden

$(B)/libdcmi.so: $(DCMI_SIM_SRC) $(DCMI_SIM_HDR) $(SIM_HOST_O) dcmi-sim/libdcmi.map | $(B)
	$(CC) $(DCMI_SIM_CFLAGS) $(SOFLAGS) -Wl,-soname,libdcmi.so -Wl,--version-script=dcmi-sim/libdcmi.map \
	  -o $@ $(DCMI_SIM_SRC) $(SIM_HOST_O) $(LDLIBS)

$(B)/dcmi-sim-old/libdcmi.so: $(DCMI_SIM_SRC) $(DCMI_SIM_HDR) $(SIM_HOST_O) dcmi-sim/libdcmi.map
	@mkdir -p $(dir $@)
	$(CC) $(DCMI_SIM_CFLAGS) -DSIM_OLD_DRIVER $(SOFLAGS) -Wl,-soname,libdcmi.so \
	  -Wl,--version-script=dcmi-sim/libdcmi.map -o $@ $(DCMI_SIM_SRC) $(SIM_HOST_O) $(LDLIBS)

# Simulated liblingqu-dcmi.so: the LingQu switch faults of an A3 host (include/lingqu_dcmi.h).
$(B)/liblingqu-dcmi.so: dcmi-sim/lingqu_sim.c dcmi-sim/sim_state.c include/lingqu_dcmi.h $(DCMI_SIM_HDR) $(SIM_HOST_O) dcmi-sim/liblingqu.map | $(B)
	$(CC) $(DCMI_SIM_CFLAGS) $(SOFLAGS) -Wl,-soname,liblingqu-dcmi.so -Wl,--version-script=dcmi-sim/liblingqu.map \
	  -o $@ dcmi-sim/lingqu_sim.c dcmi-sim/sim_state.c $(SIM_HOST_O) $(LDLIBS)

$(B)/vnpu-sim-ctl: dcmi-sim/vnpu_sim_ctl.c dcmi-sim/sim_state.c dcmi-sim/sim_devnodes.c $(DCMI_SIM_HDR) $(SIM_HOST_O) | $(B)
	$(CC) $(DCMI_SIM_CFLAGS) -o $@ dcmi-sim/vnpu_sim_ctl.c dcmi-sim/sim_state.c dcmi-sim/sim_devnodes.c $(SIM_HOST_O) $(LDFLAGS) $(LDLIBS)

$(B)/dcmi-abi-dump: dcmi-sim/abi_dump.c include/dcmi_interface_api.h include/lingqu_dcmi.h | $(B)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS)

$(B)/dcmi-sim/test_dcmi_sim: dcmi-sim/tests/test_dcmi_sim.c include/dcmi_interface_api.h $(B)/libdcmi.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< -L$(B) -ldcmi -Wl,-rpath,'$$ORIGIN/..' $(LDFLAGS) $(LDLIBS)

TARGETS += $(B)/libdcmi.so $(B)/liblingqu-dcmi.so $(B)/dcmi-sim-old/libdcmi.so $(B)/vnpu-sim-ctl $(B)/dcmi-abi-dump \
           $(B)/dcmi-sim/test_dcmi_sim
TESTS   += $(B)/dcmi-sim/test_dcmi_sim dcmi-sim/tests/test_vnpu_sim_ctl.sh
