// DPI-C scoreboard of bitstring_decode against the wormcast model
// (scoreboard.svh tells the timing).
`timescale 1ns/1ps
`include "vec.vh"
module tb;
    import wormcast_dpi::*;
    localparam N = `UNIT_N;
    localparam P = `UNIT_P;
    reg clk = 1'b0;
    reg rst, hdr_valid, ud_in;
    reg [N-1:0] dests, total;
    reg [P*N-1:0] restricted;
    reg [P-1:0] up_ports;
    wire valid, ud_out;
    wire [1:0] err;
    wire [P-1:0] replicate, choice;
    wire [P*N-1:0] hdr_out;

    bitstring_decode #(.N(N), .P(P)) dut (
        .clk(clk), .rst(rst), .hdr_valid(hdr_valid), .ud_in(ud_in), .dests(dests),
        .total(total), .restricted(restricted), .up_ports(up_ports), .valid(valid),
        .err(err), .ud_out(ud_out), .replicate(replicate), .choice(choice), .hdr_out(hdr_out)
    );

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
