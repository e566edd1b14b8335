// The device of every testbench of repl_buffer: its sizes from vec.vh
// (`UNIT_*), the registers that drive its inputs, the wires of its outputs
// and the instance `dut`; included inside module tb by tb/tb_repl_buffer.v
// (waveform testbench) and dpi/tb_dpi_repl_buffer.sv (DPI-C scoreboard).
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
