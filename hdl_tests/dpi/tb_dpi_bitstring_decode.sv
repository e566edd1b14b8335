// DPI-C scoreboard of bitstring_decode against the wormcast model
// (scoreboard.svh tells the timing).
`timescale 1ns/1ps
`include "vec.vh"
module tb;
    import wormcast_dpi::*;
    `include "dut_bitstring_decode.vh"

    `include "scoreboard.svh"

    task automatic set_model();
        `WC_SET(rst) `WC_SET(hdr_valid) `WC_SET(ud_in) `WC_SET(dests) `WC_SET(total)
        `WC_SET(restricted) `WC_SET(up_ports)
    endtask
    task automatic check_model();
        `WC_CHECK(valid) `WC_CHECK(err) `WC_CHECK(ud_out) `WC_CHECK(replicate)
        `WC_CHECK(choice) `WC_CHECK(hdr_out)
    endtask

    initial run_scoreboard("bitstring-decode", N, P, 0, 0, 0);
endmodule
