// The input buffer with chunk reference counts and one read pointer per
// output (asynchronous replication; seed 000 sections 3.4.2 and 5.1.2):
// twin of the model's src/switch/twin/buffer.rs, with the same port names
// and widths.
//
// The memory is C chunks of K flits (8 data bits and a tail mark). A packet
// takes a chunk when it starts and at every K-th flit; its chunks form a
// linked list. When the decode unit gives the oldest packet not yet given
// readers a set of outputs (fan_valid, fan_mask), every chunk of the packet,
// present and future, gets a reference count equal to the number of those
// readers, and each reader walks the packet with its own pointer at its own
// pace. A reader drops its reference to a chunk when it moves past it or
// reads the packet's tail in it; a chunk is free again at zero.
//
// Within a rising edge: the reads (reader 0 first), then the fanout, then
// the write. Blocking assignments inside the clocked block give that order
// exactly; every register is written in this block only.
module repl_buffer #(
    parameter C = 16,                   // chunks
    parameter K = 4,                    // flits per chunk
    parameter P = 3                     // readers (output ports)
) (
    clk, rst, wr_valid, wr_data, wr_tail, fan_valid, fan_mask, rd_en,
    wr_ok, fan_ok, rd_valid, rd_data, rd_tail, busy,
    free_chunks, buf_count, packets, chunks_freed
);
    localparam CB  = (C <= 2) ? 1 : $clog2(C);       // chunk / packet index
    localparam KB  = $clog2(K + 1);                  // offset in a chunk, 0..K
    localparam RB  = $clog2(P + 1);                  // reference counts, 0..P
    localparam FB  = $clog2(C + 1);                  // counts of chunks
    localparam NB  = $clog2(C * K + 1);              // counts of flits

    input  wire            clk;
    input  wire            rst;         // synchronous: empty, outputs 0
    input  wire            wr_valid;
    input  wire [7:0]      wr_data;
    input  wire            wr_tail;
    input  wire            fan_valid;
    input  wire [P-1:0]    fan_mask;
    input  wire [P-1:0]    rd_en;
    output reg             wr_ok;
    output reg             fan_ok;
    output reg  [P-1:0]    rd_valid;
    output reg  [8*P-1:0]  rd_data;
    output reg  [P-1:0]    rd_tail;
    output reg  [P-1:0]    busy;
    output reg  [FB-1:0]   free_chunks;
    output reg  [NB-1:0]   buf_count;
    output reg  [FB-1:0]   packets;
    output reg  [15:0]     chunks_freed;

    // Chunks.
    reg [8:0]    mem [0:C*K-1];         // {tail, data}
    reg          used  [0:C-1];
    reg [RB-1:0] refs  [0:C-1];
    reg [CB-1:0] nxt   [0:C-1];
    reg [CB-1:0] owner [0:C-1];         // the packet a chunk belongs to
    // Packets.
    reg          p_used    [0:C-1];
    reg [CB-1:0] p_first   [0:C-1];
    reg [CB-1:0] p_last    [0:C-1];
    reg [KB-1:0] p_off     [0:C-1];     // flits in the last chunk
    reg [15:0]   p_written [0:C-1];
    reg [RB-1:0] p_fanout  [0:C-1];
    reg [RB-1:0] p_done    [0:C-1];
    // Packets waiting for readers, oldest first.
    reg [CB-1:0] q [0:C-1];
    reg [CB-1:0] q_head;
    reg [FB-1:0] q_count;
    // The packet being written.
    reg          w_open;
    reg [CB-1:0] w_pkt;
    // Readers.
    reg          r_act   [0:P-1];
    reg [CB-1:0] r_pkt   [0:P-1];
    reg [15:0]   r_read  [0:P-1];
    reg [CB-1:0] r_chunk [0:P-1];
    reg [KB-1:0] r_off   [0:P-1];
    // Counters.
    reg [FB-1:0] nfree;
    reg [NB-1:0] nflits;
    reg [FB-1:0] npkts;
    reg [15:0]   nfreed;

    // Scratch of the clocked block.
    integer      i, p, c, pk, n;
    reg [8:0]    f;
    reg          ok;
    reg [RB-1:0] cnt;

    // Drops one reference to chunk `ch`, which holds `fill` flits.
    task release_chunk;
        input integer ch;
        input integer fill;
        begin
            refs[ch] = refs[ch] - 1'b1;
            if (refs[ch] == 0) begin
                used[ch] = 1'b0;
                nflits = nflits - fill;
                nfree = nfree + 1'b1;
                nfreed = nfreed + 1'b1;
            end
        end
    endtask

    always @(posedge clk) begin
        if (rst) begin
            for (i = 0; i < C; i = i + 1) begin
                used[i] = 1'b0;
                p_used[i] = 1'b0;
                refs[i] = 0;
            end
            for (i = 0; i < P; i = i + 1) r_act[i] = 1'b0;
            q_head = 0; q_count = 0; w_open = 1'b0; w_pkt = 0;
            nfree = C; nflits = 0; npkts = 0; nfreed = 0;
            wr_ok <= 1'b0; fan_ok <= 1'b0; rd_valid <= 0; rd_data <= 0; rd_tail <= 0;
            busy <= 0; free_chunks <= 0; buf_count <= 0; packets <= 0; chunks_freed <= 0;
        end else begin
            rd_valid <= 0; rd_data <= 0; rd_tail <= 0; wr_ok <= 1'b0; fan_ok <= 1'b0;
            // 1. Reads.
            for (p = 0; p < P; p = p + 1) begin
                if (rd_en[p] && r_act[p] && r_read[p] < p_written[r_pkt[p]]) begin
                    if (r_off[p] == K) begin            // moving past a full chunk
                        c = r_chunk[p];
                        r_chunk[p] = nxt[c];
                        r_off[p] = 0;
                        release_chunk(c, K);
                    end
                    f = mem[r_chunk[p] * K + r_off[p]];
                    r_off[p] = r_off[p] + 1'b1;
                    r_read[p] = r_read[p] + 1'b1;
                    rd_valid[p] <= 1'b1;
                    rd_data[8*p +: 8] <= f[7:0];
                    if (f[8]) begin                     // the tail
                        rd_tail[p] <= 1'b1;
                        release_chunk(r_chunk[p], r_off[p]);
                        pk = r_pkt[p];
                        p_done[pk] = p_done[pk] + 1'b1;
                        if (p_done[pk] == p_fanout[pk]) begin
                            p_used[pk] = 1'b0;
                            npkts = npkts - 1'b1;
                        end
                        r_act[p] = 1'b0;
                    end
                end
            end
            // 2. Fanout to the oldest waiting packet.
            if (fan_valid && q_count != 0 && fan_mask != 0) begin
                ok = 1'b1;
                cnt = 0;
                for (p = 0; p < P; p = p + 1) begin
                    if (fan_mask[p]) begin
                        cnt = cnt + 1'b1;
                        if (r_act[p]) ok = 1'b0;
                    end
                end
                if (ok) begin
                    pk = q[q_head];
                    q_head = (q_head == C - 1) ? 0 : q_head + 1'b1;
                    q_count = q_count - 1'b1;
                    p_fanout[pk] = cnt;
                    for (i = 0; i < C; i = i + 1)
                        if (used[i] && owner[i] == pk) refs[i] = cnt;
                    for (p = 0; p < P; p = p + 1) begin
                        if (fan_mask[p]) begin
                            r_act[p] = 1'b1;
                            r_pkt[p] = pk;
                            r_read[p] = 0;
                            r_chunk[p] = p_first[pk];
                            r_off[p] = 0;
                        end
                    end
                    fan_ok <= 1'b1;
                end
            end
            // 3. Write.
            if (wr_valid) begin
                // The lowest free chunk and packet entry.
                c = -1;
                for (i = C - 1; i >= 0; i = i - 1) if (!used[i]) c = i;
                if (!w_open) begin
                    if (c >= 0) begin
                        n = -1;
                        for (i = C - 1; i >= 0; i = i - 1) if (!p_used[i]) n = i;
                        pk = n;
                        used[c] = 1'b1; refs[c] = 0; owner[c] = pk;
                        mem[c * K] = {wr_tail, wr_data};
                        nfree = nfree - 1'b1;
                        nflits = nflits + 1'b1;
                        p_used[pk] = 1'b1; p_first[pk] = c; p_last[pk] = c; p_off[pk] = 1;
                        p_written[pk] = 1; p_fanout[pk] = 0; p_done[pk] = 0;
                        npkts = npkts + 1'b1;
                        q[(q_head + q_count) % C] = pk;
                        q_count = q_count + 1'b1;
                        if (!wr_tail) begin
                            w_open = 1'b1;
                            w_pkt = pk;
                        end
                        wr_ok <= 1'b1;
                    end
                end else begin
                    pk = w_pkt;
                    ok = 1'b1;
                    if (p_off[pk] == K) begin           // a new chunk
                        if (c >= 0) begin
                            used[c] = 1'b1; refs[c] = p_fanout[pk]; owner[c] = pk;
                            nxt[p_last[pk]] = c;
                            p_last[pk] = c;
                            p_off[pk] = 0;
                            nfree = nfree - 1'b1;
                        end else ok = 1'b0;
                    end
                    if (ok) begin
                        mem[p_last[pk] * K + p_off[pk]] = {wr_tail, wr_data};
                        p_off[pk] = p_off[pk] + 1'b1;
                        p_written[pk] = p_written[pk] + 1'b1;
                        nflits = nflits + 1'b1;
                        if (wr_tail) w_open = 1'b0;
                        wr_ok <= 1'b1;
                    end
                end
            end
            for (p = 0; p < P; p = p + 1) busy[p] <= r_act[p];
            free_chunks <= nfree;
            buf_count <= nflits;
            packets <= npkts;
            chunks_freed <= nfreed;
        end
    end
endmodule
