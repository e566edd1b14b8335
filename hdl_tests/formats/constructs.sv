// A small SystemVerilog design with what simulators write unusual
// waveforms for: a declaration outside any module ($unit), a for-int loop
// (Icarus: `$scope begin $ivl_for_loop0`), an escaped identifier, a packed
// struct, an unpacked array, a real and an integer. tests/real_tools.rs
// simulates it under Icarus Verilog (-g2012) and Verilator (VCD and FST)
// and reads every dump. The waveform file is named by +wave=FILE.
logic unit_flag;

module constructs;
    typedef struct packed { logic [3:0] a; logic b; } pair_t;
    logic clk = 1'b0;
    logic [7:0] data;
    pair_t p;
    real r;
    integer k;
    logic [15:0] mem [0:1];
    wire \esc.name[3] ;
    assign \esc.name[3] = data[3];

    always @(posedge clk) begin
        for (int i = 0; i < 4; i++) data[i] <= ~data[i];
        k <= k + 1;
    end

    initial begin
        string f;
        if (!$value$plusargs("wave=%s", f)) f = "constructs.vcd";
        $dumpfile(f);
        $dumpvars(0, constructs);
        data = 8'h0f; p = {4'h5, 1'b1}; r = 1.5; k = 3;
        mem[0] = 16'hbeef; mem[1] = 16'h1234; unit_flag = 1'b1;
        repeat (8) begin
            #5 clk = ~clk;
        end
        r = 2.25;
        p = {4'h3, 1'b0};
        #5 $finish;
    end
endmodule
