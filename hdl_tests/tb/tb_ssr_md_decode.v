// Testbench of ssr_md_decode: drives the vectors of
// `wormcast vectors --unit ssr-md-decode` (vec.vh, found on the include
// path) one per clock cycle, changing the inputs at the falling edge, and
// dumps every signal to the VCD named by +vcd=FILE (default tb.vcd).
`timescale 1ns/1ps
`include "vec.vh"
module tb;
    `include "dut_ssr_md_decode.vh"

    `include "drive.vh"
endmodule
