// The device of every testbench of bitstring_decode: its sizes from vec.vh
// (`UNIT_*), the registers that drive its inputs, the wires of its outputs
// and the instance `dut`; included inside module tb by tb/tb_bitstring_decode.v
// (waveform testbench) and dpi/tb_dpi_bitstring_decode.sv (DPI-C scoreboard).
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
