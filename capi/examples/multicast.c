/*
 * The C ABI from C: a bit-string decode unit stepped by its port names,
 * then a bit-string multicast from node 3 to nodes 4, 7, 20 and 31 of the
 * 32-node irregular network of seed 1, with every delivery printed
 * ("DELIVERY msg node cycle"; hdl_tests/live.sh compares them with the
 * command line's).
 *
 *   cc -I capi/include capi/examples/multicast.c target/release/libwormcast_capi.a \
 *      -lpthread -ldl -lm -o multicast && ./multicast
 */
#include <stdio.h>
#include "wormcast.h"

static int fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, wc_last_error());
    return 1;
}

int main(void) {
    /* The unit: 8 nodes, 3 ports; port 0 goes up, ports 1 and 2 reach
     * nodes 0-3 and 4-5 going down. */
    WcUnit *u = wc_unit_new("bitstring-decode", 8, 3, 0, 0, 0);
    if (!u) return fail("wc_unit_new");
    uint32_t total = 0x3f, restricted = 0x0f << 8 | 0x30 << 16, up = 1, one = 1, dests = 0x12;
    if (wc_unit_set(u, "total", &total, 1) || wc_unit_set(u, "restricted", &restricted, 1) ||
        wc_unit_set(u, "up_ports", &up, 1) || wc_unit_set(u, "hdr_valid", &one, 1) ||
        wc_unit_set(u, "dests", &dests, 1) || wc_unit_step(u))
        return fail("bitstring-decode");
    uint32_t replicate = 0, hdr_out = 0;
    if (wc_unit_get(u, "replicate", &replicate, 1) || wc_unit_get(u, "hdr_out", &hdr_out, 1))
        return fail("wc_unit_get");
    printf("UNIT replicate %u hdr_out 0x%06x\n", replicate, hdr_out);
    uint32_t wide = 1u << 8;
    if (wc_unit_set(u, "dests", &wide, 1) != WC_EINVAL) return fail("a value too wide was taken");
    printf("REFUSED %s\n", wc_last_error());
    wc_unit_free(u);

    WcNet *n = wc_net_new("irregular:switches=8,ports=8,nodes=32,seed=1", NULL, NULL, NULL, 1);
    if (!n) return fail("wc_net_new");
    uint32_t to[] = {4, 7, 20, 31};
    if (wc_net_send(n, 3, to, 4, 20) != 0) return fail("wc_net_send");
    int64_t last = wc_net_drain(n, 100000);
    if (last < 0) return fail("wc_net_drain");
    WcDelivery d;
    while (wc_net_next_delivery(n, &d) == 1)
        printf("DELIVERY %llu %u %llu\n", (unsigned long long)d.msg, d.node,
               (unsigned long long)d.cycle);
    printf("DRAINED %lld\n", (long long)last);
    wc_net_free(n);
    return 0;
}
