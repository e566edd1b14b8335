// The stimulus loop every testbench shares (included inside module tb):
// vector i is on the inputs before rising edge i (at 10 i + 5 ns); inputs
// change at the falling edges; the run ends half a cycle after the last
// rising edge.
reg [`VEC_WIDTH-1:0] vec [0:`VEC_CYCLES-1];
reg [8*512-1:0] vcd_file;
integer cyc;
initial begin
    if (!$value$plusargs("vcd=%s", vcd_file)) vcd_file = "tb.vcd";
    $readmemh(`VEC_FILE, vec);
    $dumpfile(vcd_file);
    $dumpvars(0, tb);
    `VEC_INPUTS = vec[0];
    for (cyc = 0; cyc < `VEC_CYCLES; cyc = cyc + 1) begin
        #5 clk = 1'b1;
        #5 clk = 1'b0;
        if (cyc + 1 < `VEC_CYCLES) `VEC_INPUTS = vec[cyc + 1];
    end
    $finish;
end
