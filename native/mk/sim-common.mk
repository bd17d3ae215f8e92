# Simulated host profiles shared by the DCMI and CANN simulators: an object other fragments link.
SIM_HOST_O := $(B)/sim-common/sim_host.o

$(B)/sim-common/sim_host.o: sim-common/sim_host.c include/vnpu_sim_host.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/sim-common/test_sim_host: sim-common/tests/test_sim_host.c $(SIM_HOST_O)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

TARGETS += $(SIM_HOST_O) $(B)/sim-common/test_sim_host
TESTS   += $(B)/sim-common/test_sim_host
