// The DPI-C scoreboard every tb_dpi_<unit>.sv shares (included inside
// module tb, after the device's signals and the tasks set_model and
// check_model): vector i of `wormcast vectors` (vec.vh on the include
// path) is driven before rising edge i; the same inputs go to the model
// (wc_unit_set), which takes its edge (wc_unit_step); one time unit after
// the device's edge every output is compared with the model's
// (wc_unit_get). The first difference is printed with its signal and
// cycle and ends the run with $fatal; a clean run prints
// "DPI SCOREBOARD OK". With +define+NO_MODEL the model is never called:
// the same testbench without the scoreboard, for timing.
reg [`VEC_WIDTH-1:0] vec [0:`VEC_CYCLES-1];
integer cyc;
longint compared = 0;
chandle model;

// A port of at most 64 bits goes by wc_unit_set64 / wc_unit_get64, a
// wider one as a wc_vec_t ($bits is a constant: one branch is compiled
// away).
`define WC_SET(port) \
    if ($bits(port) <= 64) begin \
        if (wc_unit_set64(model, `"port`", 64'(port)) != WC_OK) \
            $fatal(1, "DPI SCOREBOARD ERROR: %s", wc_last_error()); \
    end else if (wc_unit_set(model, `"port`", wc_vec_t'(port), WC_WORDS) != WC_OK) \
        $fatal(1, "DPI SCOREBOARD ERROR: %s", wc_last_error());

`define WC_CHECK(port) \
    if ($bits(port) <= 64) begin \
        longint unsigned want; \
        if (wc_unit_get64(model, `"port`", want) != WC_OK) \
            $fatal(1, "DPI SCOREBOARD ERROR: %s", wc_last_error()); \
        if (64'(port) !== want) \
            $fatal(1, "DPI SCOREBOARD FAIL cycle %0d: %s = 'h%0h but the model registers 'h%0h", \
                cyc, `"port`", port, want); \
        compared = compared + 1; \
    end else begin \
        wc_vec_t want; \
        if (wc_unit_get(model, `"port`", want, WC_WORDS) != WC_OK) \
            $fatal(1, "DPI SCOREBOARD ERROR: %s", wc_last_error()); \
        if (wc_vec_t'(port) !== want) \
            $fatal(1, "DPI SCOREBOARD FAIL cycle %0d: %s = 'h%0h but the model registers 'h%0h", \
                cyc, `"port`", port, want); \
        compared = compared + 1; \
    end

task automatic run_scoreboard(input string unit, input int unsigned nodes,
        input int unsigned ports, input int unsigned switches, input int unsigned chunks,
        input int unsigned chunk_flits);
`ifndef NO_MODEL
    model = wc_unit_new(unit, nodes, ports, switches, chunks, chunk_flits);
    if (model == null) $fatal(1, "DPI SCOREBOARD ERROR: %s", wc_last_error());
`endif
    $readmemh(`VEC_FILE, vec);
    for (cyc = 0; cyc < `VEC_CYCLES; cyc = cyc + 1) begin
        `VEC_INPUTS = vec[cyc];
`ifndef NO_MODEL
        set_model();
        if (wc_unit_step(model) != WC_OK) $fatal(1, "DPI SCOREBOARD ERROR: %s", wc_last_error());
`endif
        #5 clk = 1'b1;
`ifndef NO_MODEL
        #1 check_model();
        #4 clk = 1'b0;
`else
        #5 clk = 1'b0;
`endif
    end
`ifndef NO_MODEL
    wc_unit_free(model);
    $display("DPI SCOREBOARD OK: %0d cycles, %0d output values equal to the model's", cyc, compared);
`else
    $display("NO MODEL: %0d cycles", cyc);
`endif
    $finish;
endtask
