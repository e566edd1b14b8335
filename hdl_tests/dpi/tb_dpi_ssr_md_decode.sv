// DPI-C scoreboard of ssr_md_decode against the wormcast model
// (scoreboard.svh tells the timing).
`timescale 1ns/1ps
`include "vec.vh"
module tb;
    import wormcast_dpi::*;
    `include "dut_ssr_md_decode.vh"

    `include "scoreboard.svh"

    task automatic set_model();
        `WC_SET(rst) `WC_SET(hdr_valid) `WC_SET(phase_down) `WC_SET(my_id)
        `WC_SET(node_ports) `WC_SET(route) `WC_SET(hdr)
    endtask
    task automatic check_model();
        `WC_CHECK(valid) `WC_CHECK(err) `WC_CHECK(kind) `WC_CHECK(target) `WC_CHECK(ports_in)
        `WC_CHECK(replicate) `WC_CHECK(choice) `WC_CHECK(strip) `WC_CHECK(hdr_first)
    endtask

    initial run_scoreboard("ssr-md-decode", 0, P, S, 0, 0);
endmodule
