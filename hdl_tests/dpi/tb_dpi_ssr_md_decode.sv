// DPI-C scoreboard of ssr_md_decode against the wormcast model
// (scoreboard.svh tells the timing).
`timescale 1ns/1ps
`include "vec.vh"
module tb;
    import wormcast_dpi::*;
    localparam P = `UNIT_P;
    localparam S = `UNIT_S;
    localparam SWB = (S <= 2) ? 1 : $clog2(S);
    localparam IDB = (3 + SWB + 7) / 8;
    localparam PB = (P + 7) / 8;
    localparam PAIRB = (SWB + P + 7) / 8;
    localparam W = (IDB + PB > 1 + 2 * PAIRB) ? IDB + PB : 1 + 2 * PAIRB;
    reg clk = 1'b0;
    reg rst, hdr_valid, phase_down;
    reg [SWB-1:0] my_id;
    reg [P-1:0] node_ports;
    reg [2*S*P-1:0] route;
    reg [8*W-1:0] hdr;
    wire valid, strip;
    wire [3:0] err;
    wire [1:0] kind;
    wire [SWB-1:0] target;
    wire [P-1:0] ports_in, replicate, choice;
    wire [7:0] hdr_first;

    ssr_md_decode #(.P(P), .S(S)) dut (
        .clk(clk), .rst(rst), .hdr_valid(hdr_valid), .phase_down(phase_down), .my_id(my_id),
        .node_ports(node_ports), .route(route), .hdr(hdr), .valid(valid), .err(err),
        .kind(kind), .target(target), .ports_in(ports_in), .replicate(replicate),
        .choice(choice), .strip(strip), .hdr_first(hdr_first)
    );

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
