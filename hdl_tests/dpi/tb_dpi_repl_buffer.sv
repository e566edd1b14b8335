// DPI-C scoreboard of repl_buffer against the wormcast model
// (scoreboard.svh tells the timing).
`timescale 1ns/1ps
`include "vec.vh"
module tb;
    import wormcast_dpi::*;
    `include "dut_repl_buffer.vh"

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
