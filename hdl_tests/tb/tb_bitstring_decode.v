// Testbench of bitstring_decode: drives the vectors of
// `wormcast vectors --unit bitstring-decode` (vec.vh, found on the include
// path) one per clock cycle, changing the inputs at the falling edge, and
// dumps every signal to the VCD named by +vcd=FILE (default tb.vcd).
`timescale 1ns/1ps
`include "vec.vh"
module tb;
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

    `include "drive.vh"
endmodule
