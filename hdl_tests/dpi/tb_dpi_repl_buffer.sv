// DPI-C scoreboard of repl_buffer against the wormcast model
// (scoreboard.svh tells the timing).
`timescale 1ns/1ps
`include "vec.vh"
module tb;
    import wormcast_dpi::*;
    localparam C = `UNIT_C;
    localparam K = `UNIT_K;
    localparam P = `UNIT_P;
    localparam FB = $clog2(C + 1);
    localparam NB = $clog2(C * K + 1);
    reg clk = 1'b0;
    reg rst, wr_valid, wr_tail, fan_valid;
    reg [7:0] wr_data;
    reg [P-1:0] fan_mask, rd_en;
    wire wr_ok, fan_ok;
    wire [P-1:0] rd_valid, rd_tail, busy;
    wire [8*P-1:0] rd_data;
    wire [FB-1:0] free_chunks, packets;
    wire [NB-1:0] buf_count;
    wire [15:0] chunks_freed;

    repl_buffer #(.C(C), .K(K), .P(P)) dut (
        .clk(clk), .rst(rst), .wr_valid(wr_valid), .wr_data(wr_data), .wr_tail(wr_tail),
        .fan_valid(fan_valid), .fan_mask(fan_mask), .rd_en(rd_en), .wr_ok(wr_ok),
        .fan_ok(fan_ok), .rd_valid(rd_valid), .rd_data(rd_data), .rd_tail(rd_tail),
        .busy(busy), .free_chunks(free_chunks), .buf_count(buf_count), .packets(packets),
        .chunks_freed(chunks_freed)
    );

    `include "scoreboard.svh"

    task automatic set_model();
        `WC_SET(rst) `WC_SET(wr_valid) `WC_SET(wr_data) `WC_SET(wr_tail) `WC_SET(fan_valid)
        `WC_SET(fan_mask) `WC_SET(rd_en)
    endtask
    task automatic check_model();
        `WC_CHECK(wr_ok) `WC_CHECK(fan_ok) `WC_CHECK(rd_valid) `WC_CHECK(rd_data)
        `WC_CHECK(rd_tail) `WC_CHECK(busy) `WC_CHECK(free_chunks) `WC_CHECK(buf_count)
        `WC_CHECK(packets) `WC_CHECK(chunks_freed)
    endtask

    initial run_scoreboard("repl-buffer", 0, P, 0, C, K);
endmodule
