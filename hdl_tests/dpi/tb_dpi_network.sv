// The network calls through DPI-C: a bit-string multicast from node 3 to
// nodes 4, 7, 20 and 31 of the 32-node irregular network of seed 1,
// drained; every delivery is printed (DELIVERY msg node cycle) for
// hdl_tests/live.sh to compare with the command line's, and a destination
// that does not exist must come back as WC_EINVAL with its message.
`timescale 1ns/1ps
module tb_network;
    import wormcast_dpi::*;
    initial begin
        chandle n;
        wc_vec_t dests;
        longint id, last;
        longint unsigned msg, cycle;
        int unsigned node;
        n = wc_net_new("irregular:switches=8,ports=8,nodes=32,seed=1", "", "", "", 1);
        if (n == null) $fatal(1, "DPI NETWORK ERROR: %s", wc_last_error());
        dests = '0;
        dests[4] = 1'b1; dests[7] = 1'b1; dests[20] = 1'b1; dests[31] = 1'b1;
        id = wc_net_send_mask(n, 3, dests, WC_WORDS, 20);
        if (id != 0) $fatal(1, "DPI NETWORK ERROR: send gave %0d: %s", id, wc_last_error());
        last = wc_net_drain(n, 100000);
        if (last < 0) $fatal(1, "DPI NETWORK ERROR: %s", wc_last_error());
        while (wc_net_next_delivery_fields(n, msg, node, cycle) == 1)
            $display("DELIVERY %0d %0d %0d", msg, node, cycle);
        $display("DRAINED %0d", last);
        dests = '0;
        dests[40] = 1'b1;
        id = wc_net_send_mask(n, 3, dests, WC_WORDS, 20);
        if (id != WC_EINVAL) $fatal(1, "DPI NETWORK ERROR: node 40 was not refused (%0d)", id);
        $display("REFUSED %s", wc_last_error());
        wc_net_free(n);
        $finish;
    end
endmodule
