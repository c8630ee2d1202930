<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ABDiff</name>
    <message>
        <source>Mark the state now as A (Edit ▸ Mark as A for comparison), keep editing, and compare: every cell shows B − A, B being the state now — gold where B is higher, blue where lower, pale where nothing moved. Or compare with a saved session of the same shape (Edit ▸ Compare with saved session…).</source>
        <translation>把现在的状态标记为 A（编辑 ▸ 标记为对比的 A），继续编辑，然后对比：每一格显示 B − A，B 是现在的状态——B 更大处为金色，更小处为蓝色，没变处为浅色。也可以与形状相同的已保存会话对比（编辑 ▸ 与已保存的会话对比…）。</translation>
    </message>
    <message>
        <source>① scores S</source>
        <translation>① 分数 S</translation>
    </message>
    <message>
        <source>② weights A</source>
        <translation>② 权重 A</translation>
    </message>
    <message>
        <source>③ output O</source>
        <translation>③ 输出 O</translation>
    </message>
    <message>
        <source>How each score of the shown head differs from A&apos;s</source>
        <translation>所显示的头的每个分数与 A 相差多少</translation>
    </message>
    <message>
        <source>How each weight of the shown head differs from A&apos;s: a row&apos;s changes sum to 0</source>
        <translation>所显示的头的每个权重与 A 相差多少：每一行的变化之和为 0</translation>
    </message>
    <message>
        <source>How each output number differs from A&apos;s</source>
        <translation>每个输出数与 A 相差多少</translation>
    </message>
    <message>
        <source>&lt;b&gt;A/B diff&lt;/b&gt;: no A yet — &lt;i&gt;Mark as A&lt;/i&gt; keeps the state now; edit on, and every stage shows B − A (B is the state now)</source>
        <translation>&lt;b&gt;A/B 对比&lt;/b&gt;：还没有 A——&lt;i&gt;标记为 A&lt;/i&gt; 会留住现在的状态；继续编辑，每一步都显示 B − A（B 是现在的状态）</translation>
    </message>
    <message>
        <source>Or compare with a saved session of the same shape.</source>
        <translation>也可以与形状相同的已保存会话对比。</translation>
    </message>
    <message>
        <source>&lt;b&gt;A/B diff&lt;/b&gt;: A is {name}; B is the state now</source>
        <translation>&lt;b&gt;A/B 对比&lt;/b&gt;：A 是 {name}；B 是现在的状态</translation>
    </message>
    <message>
        <source>B − A stays hidden until the lesson has revealed ② and ③</source>
        <translation>B − A 在课程揭示 ② 和 ③ 之前保持隐藏</translation>
    </message>
    <message>
        <source>computing…</source>
        <translation>计算中…</translation>
    </message>
    <message>
        <source> — what is shown is from before the last change</source>
        <translation>——显示的是上一次改动之前的结果</translation>
    </message>
    <message>
        <source>&lt;b&gt;computing…&lt;/b&gt; B − A of {n} weights{before}</source>
        <translation>&lt;b&gt;计算中…&lt;/b&gt;{n} 个权重的 B − A{before}</translation>
    </message>
    <message>
        <source>Largest changes — </source>
        <translation>变化最大的——</translation>
    </message>
    <message>
        <source> (head {head})</source>
        <translation>（头 {head}）</translation>
    </message>
    <message>
        <source>B is the same as A: nothing moved.</source>
        <translation>B 与 A 相同：什么都没变。</translation>
    </message>
    <message>
        <source>{cell}
in A (marked): {a}
in B (now): {b}
B − A = {change}</source>
        <translation>{cell}
A 中（标记时）：{a}
B 中（现在）：{b}
B − A = {change}</translation>
    </message>
    <message>
        <source>Mark as A</source>
        <translation>标记为 A</translation>
    </message>
    <message>
        <source>Keep the state now as A; edit on, and each stage shows B − A</source>
        <translation>把现在的状态留作 A；继续编辑，每一步都显示 B − A</translation>
    </message>
    <message>
        <source>Compare with saved session…</source>
        <translation>与已保存的会话对比…</translation>
    </message>
    <message>
        <source>Take A from a saved session of the same shape (the file is only read)</source>
        <translation>从形状相同的已保存会话取 A（文件只读不写）</translation>
    </message>
    <message>
        <source>Clear A</source>
        <translation>清除 A</translation>
    </message>
    <message>
        <source>Forget A</source>
        <translation>忘掉 A</translation>
    </message>
    <message>
        <source>A state of {shape} is too large to keep as A (at most {most} weights)</source>
        <translation>{shape} 的状态太大，不能留作 A（最多 {most} 个权重）</translation>
    </message>
    <message>
        <source>A state of {shape} is too large to keep as A: it and B − A need {need}, and only {free} of memory is free</source>
        <translation>{shape} 的状态太大，不能留作 A：它和 B − A 需要 {need}，而空闲内存只有 {free}</translation>
    </message>
    <message>
        <source>Cannot mark this state as A: its results could not be computed ({why})</source>
        <translation>无法把这个状态标记为 A：它的结果没能算出来（{why}）</translation>
    </message>
    <message>
        <source>{name}: its stages could not be computed ({why})</source>
        <translation>{name}：它的各阶段没能算出来（{why}）</translation>
    </message>
    <message>
        <source>Cannot compare with {name}: the results of this session could not be computed ({why})</source>
        <translation>无法与 {name} 对比：这个会话的结果没能算出来（{why}）</translation>
    </message>
</context>
<context>
    <name>Block</name>
    <message>
        <source>x — the residual stream in</source>
        <translation>x —— 流入的残差流</translation>
    </message>
    <message>
        <source>{norm}₁(x) — 归一化, 摁住范数</source>
        <translation>{norm}₁(x) —— 归一化，摁住范数</translation>
    </message>
    <message>
        <source>Attn — tokens talk along L (交流)</source>
        <translation>Attn —— 词元之间沿 L 轴交流</translation>
    </message>
    <message>
        <source>h = x + Attn — 存款 into the residual stream</source>
        <translation>h = x + Attn —— 存款进残差流</translation>
    </message>
    <message>
        <source>Attn(x) — tokens talk along L (交流)</source>
        <translation>Attn(x) —— 词元之间沿 L 轴交流</translation>
    </message>
    <message>
        <source>x + Attn — 存款 into the residual stream</source>
        <translation>x + Attn —— 存款进残差流</translation>
    </message>
    <message>
        <source>h = {norm}₁(x + Attn) — 摁住范数</source>
        <translation>h = {norm}₁(x + Attn) —— 摁住范数</translation>
    </message>
    <message>
        <source>FFN hidden {act}(·W₁ᵀ) — F wide, each token alone (加工)</source>
        <translation>FFN 隐层 {act}(·W₁ᵀ) —— 宽 F，每个词元独立加工</translation>
    </message>
    <message>
        <source>FFN out ·W₂ᵀ — back to D</source>
        <translation>FFN 输出 ·W₂ᵀ —— 回到 D 维</translation>
    </message>
    <message>
        <source>out = h + FFN — 再存款</source>
        <translation>out = h + FFN —— 再存款</translation>
    </message>
    <message>
        <source>h + FFN — 再存款</source>
        <translation>h + FFN —— 再存款</translation>
    </message>
    <message>
        <source>The block adds attention&apos;s output back to the token vectors X and normalises X before attention reads it — this session edits Q, K, V directly, so it has no X. Switch to projected mode (Q = X·W_qᵀ, K = X·W_kᵀ, V = X·W_vᵀ) to see its block.</source>
        <translation>块把注意力的输出加回词元向量 X，并在注意力读取 X 之前先把它归一化——这个会话直接编辑 Q、K、V，没有 X。切换到投影模式(Q = X·W_qᵀ，K = X·W_kᵀ，V = X·W_vᵀ)才能看到它的块。</translation>
    </message>
    <message>
        <source>This is a cross-attention session; the block shown here is an encoder block, whose tokens attend to themselves. Make it self-attention to see its block.</source>
        <translation>这是一个交叉注意力会话；这里显示的是编码器块，它的词元关注的是自身。改成自注意力才能看到它的块。</translation>
    </message>
    <message>
        <source>W_o gives back {rows} columns, but the residual stream X is D = {D} wide: x + Attn needs W_o to have D = {D} rows (a session switched from direct mode has X = [Q | K | V] and W_o = I of V&apos;s width).</source>
        <translation>W_o 给出 {rows} 列，但残差流 X 宽 D = {D}：x + Attn 需要 W_o 有 D = {D} 行（从直接编辑模式切换来的会话中，X = [Q | K | V]，W_o 是与 V 同宽的单位阵）。</translation>
    </message>
    <message>
        <source>The block of {length} tokens with {heads} heads needs {need} for its attention&apos;s scores and weights (2·H·L² float64), and only {free} of memory is free — fewer tokens or heads.</source>
        <translation>{length} 个词元、{heads} 个头的块，其注意力的分数和权重（2·H·L² 个 float64）需要 {need}，而可用内存只有 {free}——请减少词元或头。</translation>
    </message>
    <message>
        <source>Make the session a Transformer block&apos;s attention</source>
        <translation>把会话变成 Transformer 块的注意力</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;small&gt;Attn is the session&apos;s own attention (its W_q, W_k, W_v, W_o, heads, mask, scale); the norms&apos; γ, β and the FFN&apos;s weights are drawn from the seed.&lt;/small&gt;</source>
        <translation>&lt;br&gt;&lt;small&gt;Attn 就是会话自己的注意力（它的 W_q、W_k、W_v、W_o、头、掩码、缩放）；归一化的 γ、β 和 FFN 的权重由种子抽取。&lt;/small&gt;</translation>
    </message>
    <message>
        <source>归一化 → 注意力 (token 之间沿 L 轴交流) → 加回残差流; 再归一化 → FFN (每个 token 独立沿 D 轴精加工) → 再加回 — talk along L, work along D, each deposits into the residual stream.</source>
        <translation>归一化 → 注意力（词元之间沿 L 轴交流）→ 加回残差流；再归一化 → FFN（每个词元独立沿 D 轴精加工）→ 再加回。交流一拍、加工一拍，轮流往残差流里存款。</translation>
    </message>
    <message>
        <source>Where the norms sit. Pre-LN (GPT-2, Llama): each sublayer reads a normalised copy and adds to the raw stream, which keeps growing. Post-LN (the original Transformer, BERT; PyTorch&apos;s TransformerEncoderLayer default): the stream itself is normalised after each addition.</source>
        <translation>归一化放在哪里。Pre-LN(GPT-2、Llama)：每个子层读一份归一化后的副本，再加回原始的流，流会越长越大。Post-LN（原版 Transformer、BERT；PyTorch TransformerEncoderLayer 的默认）：每次相加之后把流本身归一化。</translation>
    </message>
    <message>
        <source>LayerNorm: subtract each token&apos;s mean, divide by its standard deviation, then ×γ + β. RMSNorm (Llama): divide by the root mean square only, then ×γ.</source>
        <translation>LayerNorm：减去每个词元的均值，除以标准差，再 ×γ + β。RMSNorm(Llama)：只除以均方根，再 ×γ。</translation>
    </message>
    <message>
        <source>The FFN&apos;s non-linearity: GELU x·Φ(x); its tanh approximation (GPT-2); ReLU max(0, x) (the original Transformer); SwiGLU silu(x·W₁ᵀ) ⊙ x·W₃ᵀ (Llama&apos;s gated MLP).</source>
        <translation>FFN 的非线性：GELU x·Φ(x)；它的 tanh 近似(GPT-2)；ReLU max(0, x)（原版 Transformer）；SwiGLU silu(x·W₁ᵀ) ⊙ x·W₃ᵀ（Llama 的门控 MLP）。</translation>
    </message>
    <message>
        <source>The FFN&apos;s hidden width F as a multiple of D (4·D in the original Transformer and GPT-2)</source>
        <translation>FFN 隐层宽度 F 是 D 的几倍（原版 Transformer 与 GPT-2 是 4·D）</translation>
    </message>
    <message>
        <source>The FFN weights and the norms&apos; γ, β are drawn from this seed (the attention&apos;s W are the session&apos;s): the same seed always gives the same block</source>
        <translation>FFN 权重和归一化的 γ、β 由这个种子抽取（注意力的 W 用会话自己的）：同一个种子总是给出同一个块</translation>
    </message>
    <message>
        <source>How many copies of this block are stacked (the same weights in each) for the plot of the residual stream&apos;s size</source>
        <translation>残差流大小图中叠放多少个这样的块（每个块权重相同）</translation>
    </message>
    <message>
        <source>W_o becomes D × (its columns): the old W_o in its last rows, zeros above — so the heads&apos; output is added to the last dimensions of X (its V columns after a switch from direct mode). One undo step.</source>
        <translation>W_o 变成 D × （它的列数）：旧 W_o 放在最后几行，上面补零——于是各头的输出加到 X 的最后几维（从直接编辑模式切换来时就是 V 的那几列）。算作一步撤销。</translation>
    </message>
    <message>
        <source>Q = X·W_qᵀ, K = X·W_kᵀ, V = X·W_vᵀ with X = [Q | K | V] and W that reproduce the current Q, K, V exactly; and W_o becomes D × (its columns): the old W_o in its last rows, zeros above — so the heads&apos; output is added to the last dimensions of X (its V columns after a switch from direct mode). One undo step.</source>
        <translation>Q = X·W_qᵀ，K = X·W_kᵀ，V = X·W_vᵀ，其中 X = [Q | K | V]，W 恰好重现当前的 Q、K、V；并且 W_o 变成 D × （它的列数）：旧 W_o 放在最后几行，上面补零——于是各头的输出加到 X 的最后几维（从直接编辑模式切换来时就是 V 的那几列）。算作一步撤销。</translation>
    </message>
    <message>
        <source> — what is shown is from before the last change</source>
        <translation>——当前显示的是上次修改之前的结果</translation>
    </message>
    <message>
        <source>&lt;b&gt;computing…&lt;/b&gt; the block of {n} tokens, {blocks} deep</source>
        <translation>&lt;b&gt;计算中…&lt;/b&gt;{n} 个词元、{blocks} 层的块</translation>
    </message>
    <message>
        <source>Switch to projected mode</source>
        <translation>切换到投影模式</translation>
    </message>
    <message>
        <source>Let W_o write into the stream</source>
        <translation>让 W_o 写入残差流</translation>
    </message>
    <message>
        <source>({rows}×{cols}, mean ‖row‖ = {size})</source>
        <translation>（{rows}×{cols}，平均 ‖行‖ = {size}）</translation>
    </message>
    <message>
        <source>‖x‖ {first} → after block 1: {second} → after block {n}: {last}</source>
        <translation>‖x‖ {first} → 第 1 块后：{second} → 第 {n} 块后：{last}</translation>
    </message>
    <message>
        <source>seed </source>
        <translation>种子 </translation>
    </message>
    <message>
        <source>block n (0 = the input x)</source>
        <translation>第 n 块（0 = 输入 x）</translation>
    </message>
    <message>
        <source>mean ‖x_n‖ over tokens</source>
        <translation>各词元 ‖x_n‖ 的平均</translation>
    </message>
    <message>
        <source>The residual stream&apos;s size after each of N stacked copies of the block: post-LN ends each block in a norm, so it stays put; pre-LN keeps adding to the raw stream</source>
        <translation>叠放 N 个块时，每一块之后残差流的大小：post-LN 每块以归一化结束，所以保持不变；pre-LN 一直往原始的流里加，所以不断增长</translation>
    </message>
</context>
<context>
    <name>Checkpoint</name>
    <message>
        <source>{folder}: no {config} (a Hugging Face checkpoint folder has config.json, model.safetensors and tokenizer.json)</source>
        <translation>{folder}：没有 {config}（Hugging Face 的检查点文件夹里有 config.json、model.safetensors 和 tokenizer.json）</translation>
    </message>
    <message>
        <source>{config}: has no &quot;model_type&quot;; supported model types: {supported}</source>
        <translation>{config}：没有 &quot;model_type&quot;；支持的模型类型：{supported}</translation>
    </message>
    <message>
        <source>{config}: model type {model_type} is not supported; supported: {supported}</source>
        <translation>{config}：不支持模型类型 {model_type}；支持的是：{supported}</translation>
    </message>
    <message>
        <source>{folder}: not a folder (a checkpoint is a folder with config.json, model.safetensors and tokenizer.json)</source>
        <translation>{folder}：不是文件夹（检查点是一个含有 config.json、model.safetensors 和 tokenizer.json 的文件夹）</translation>
    </message>
    <message>
        <source>{folder}: no such folder, and no such model in the Hugging Face cache ({cache}); download it first, e.g. `hf download {folder}`</source>
        <translation>{folder}：没有这个文件夹，Hugging Face 缓存（{cache}）里也没有这个模型；请先下载，例如 `hf download {folder}`</translation>
    </message>
    <message>
        <source>{folder}: holds neither {single} nor {index} (only safetensors checkpoints are read)</source>
        <translation>{folder}：既没有 {single} 也没有 {index}（只读取 safetensors 格式的检查点）</translation>
    </message>
    <message>
        <source>{folder}: no {tokenizer} (only fast tokenizers&apos; tokenizer.json is read)</source>
        <translation>{folder}：没有 {tokenizer}（只读取快速分词器的 tokenizer.json）</translation>
    </message>
</context>
<context>
    <name>Comparison</name>
    <message>
        <source>the state at {time}</source>
        <translation>{time} 时的状态</translation>
    </message>
    <message>
        <source>this session</source>
        <translation>这个会话</translation>
    </message>
    <message>
        <source>Cannot compare with {name}: {why}</source>
        <translation>无法与 {name} 对比：{why}</translation>
    </message>
</context>
<context>
    <name>Controls</name>
    <message>
        <source>Q, K, V</source>
        <translation>Q、K、V</translation>
    </message>
    <message>
        <source>Positions</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Scale</source>
        <translation>缩放</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Mask</source>
        <translation>掩码</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>K/V heads</source>
        <translation>K/V 头</translation>
    </message>
    <message>
        <source>Queries</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>Query row</source>
        <translation>查询行</translation>
    </message>
    <message>
        <source>Shapes</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>causal mask (no peeking at later tokens)</source>
        <translation>因果掩码（不偷看后面的词元）</translation>
    </message>
    <message>
        <source>separate query tokens (cross-attention)</source>
        <translation>查询有自己的词元（交叉注意力）</translation>
    </message>
    <message>
        <source>cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>head {number}</source>
        <translation>头 {number}</translation>
    </message>
    <message>
        <source>L = {tokens}</source>
        <translation>L = {n_tokens} 个词元</translation>
    </message>
    <message>
        <source>L_q = {queries}, L_k = {keys}</source>
        <translation>L_q = {n_queries} 个查询，L_k = {n_keys} 个键</translation>
    </message>
    <message>
        <source>d = {d} (Q), {kv_width} (K: {kv_heads} × {d_h}), d_v = {dv} (V)</source>
        <translation>d = {d}(Q)，{kv_width}（K：{n_kv_heads} 个 K/V 头 × {d_h}），d_v = {dv}(V)</translation>
    </message>
    <message>
        <source>K/V cache: {per_token} numbers a token ({bytes} B in float16), {times}× less than with a K/V head per query head</source>
        <translation>K/V 缓存：每个词元 {per_token} 个数（float16 下 {bytes} B），比每个查询头配一个 K/V 头少 {times} 倍</translation>
    </message>
    <message>
        <source>off (the RoPE panel turns it on)</source>
        <translation>关（在 RoPE 面板打开）</translation>
    </message>
    <message>
        <source>on, base {base}</source>
        <translation>开，基数 {base}</translation>
    </message>
    <message>
        <source>{kv} (one per head: multi-head)</source>
        <translation>{kv}（每头一个：多头）</translation>
    </message>
    <message>
        <source>1 (multi-query, MQA)</source>
        <translation>1（多查询，MQA）</translation>
    </message>
    <message>
        <source>{kv} (grouped-query, GQA: {each} query heads each)</source>
        <translation>{kv}（分组查询，GQA：每组 {each} 个查询头）</translation>
    </message>
</context>
<context>
    <name>Coordinator</name>
    <message>
        <source>not enough memory at this size</source>
        <translation>这个规模下内存不足</translation>
    </message>
    <message>
        <source>Could not compute attention: {why}</source>
        <translation>无法计算注意力：{why}</translation>
    </message>
    <message>
        <source>not enough memory for attention at this size</source>
        <translation>这个规模下注意力所需内存不足</translation>
    </message>
    <message>
        <source>internal error {error} (please report it)</source>
        <translation>内部错误 {error}（请报告它）</translation>
    </message>
</context>
<context>
    <name>Details</name>
    <message>
        <source>Show or hide the explanation</source>
        <translation>显示或隐藏说明</translation>
    </message>
</context>
<context>
    <name>Docks</name>
    <message>
        <source>Matrix editor — Q, K, V</source>
        <translation>矩阵编辑器 — Q、K、V</translation>
    </message>
    <message>
        <source>Controls</source>
        <translation>控制</translation>
    </message>
    <message>
        <source>Lesson 实验引导</source>
        <translation>实验引导 Lesson</translation>
    </message>
    <message>
        <source>① Scores  S = QKᵀ·scale</source>
        <translation>① 分数  S = QKᵀ·scale</translation>
    </message>
    <message>
        <source>② Weights  A = softmax(S)</source>
        <translation>② 权重  A = softmax(S)</translation>
    </message>
    <message>
        <source>③ Output  O = A·V</source>
        <translation>③ 输出  O = A·V</translation>
    </message>
    <message>
        <source>Readout</source>
        <translation>读出</translation>
    </message>
    <message>
        <source>Attention lines</source>
        <translation>注意力连线</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>多头</translation>
    </message>
    <message>
        <source>Split and merge</source>
        <translation>拆分与合并</translation>
    </message>
    <message>
        <source>Positions</source>
        <translation>位置编码</translation>
    </message>
    <message>
        <source>The √d lesson</source>
        <translation>√d 这一课</translation>
    </message>
    <message>
        <source>RoPE</source>
        <translation>RoPE 旋转位置编码</translation>
    </message>
    <message>
        <source>Generation · KV cache</source>
        <translation>生成 · KV 缓存</translation>
    </message>
    <message>
        <source>Model · real heads</source>
        <translation>模型 · 真实的头</translation>
    </message>
    <message>
        <source>Transformer block</source>
        <translation>Transformer 块</translation>
    </message>
    <message>
        <source>Efficient attention</source>
        <translation>高效注意力</translation>
    </message>
    <message>
        <source>FlashAttention</source>
        <translation>FlashAttention 分块计算</translation>
    </message>
    <message>
        <source>Query–key space</source>
        <translation>查询–键空间</translation>
    </message>
    <message>
        <source>Sensitivity · nudge a cell</source>
        <translation>敏感度 · 微调一格</translation>
    </message>
    <message>
        <source>A/B diff</source>
        <translation>A/B 对比</translation>
    </message>
</context>
<context>
    <name>Documents</name>
    <message>
        <source>Attention Explorer sessions (*.json *.aesz);;Attention Explorer sessions, JSON (*.json);;Attention Explorer sessions, binary (*.aesz);;All files (*)</source>
        <translation>Attention Explorer 会话 (*.json *.aesz);;Attention Explorer 会话，JSON (*.json);;Attention Explorer 会话，二进制 (*.aesz);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Attention Explorer session, JSON (*.json);;Attention Explorer session, binary (*.aesz)</source>
        <translation>Attention Explorer 会话，JSON (*.json);;Attention Explorer 会话，二进制 (*.aesz)</translation>
    </message>
    <message>
        <source>Attention Explorer session, binary (*.aesz);;Attention Explorer session, JSON (*.json)</source>
        <translation>Attention Explorer 会话，二进制 (*.aesz);;Attention Explorer 会话，JSON (*.json)</translation>
    </message>
    <message>
        <source>Matrices (*.npy *.npz *.csv *.tsv *.txt);;All files (*)</source>
        <translation>矩阵 (*.npy *.npz *.csv *.tsv *.txt);;所有文件 (*)</translation>
    </message>
    <message>
        <source>CSV (*.csv);;NumPy (*.npy)</source>
        <translation>CSV (*.csv);;NumPy (*.npy)</translation>
    </message>
    <message>
        <source>NumPy archives (*.npz);;All files (*)</source>
        <translation>NumPy 压缩包 (*.npz);;所有文件 (*)</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg)</translation>
    </message>
    <message>
        <source>Python script (*.py)</source>
        <translation>Python 脚本 (*.py)</translation>
    </message>
    <message>
        <source>New session: {title}</source>
        <translation>新会话：{title}</translation>
    </message>
    <message>
        <source>Open session</source>
        <translation>打开会话</translation>
    </message>
    <message>
        <source>Could not open the session</source>
        <translation>无法打开会话</translation>
    </message>
    <message>
        <source>Opening {name} ({size} MB)…</source>
        <translation>正在打开 {name}({size} MB)…</translation>
    </message>
    <message>
        <source>Opened {path}</source>
        <translation>已打开 {path}</translation>
    </message>
    <message>
        <source>Compare with saved session</source>
        <translation>与已保存的会话对比</translation>
    </message>
    <message>
        <source>Could not compare</source>
        <translation>无法对比</translation>
    </message>
    <message>
        <source>A is {name}: the A/B diff shows the state now minus it</source>
        <translation>A 是 {name}：A/B 对比显示现在的状态减去它</translation>
    </message>
    <message>
        <source>Save session as</source>
        <translation>会话另存为</translation>
    </message>
    <message>
        <source>Could not save the session</source>
        <translation>无法保存会话</translation>
    </message>
    <message>
        <source>Saved {path}</source>
        <translation>已保存 {path}</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <source>Save the changes to {name} first?</source>
        <translation>先保存对 {name} 的更改吗？</translation>
    </message>
    <message>
        <source>(no recent files)</source>
        <translation>（没有最近的文件）</translation>
    </message>
    <message>
        <source>Import a matrix into {name}</source>
        <translation>把矩阵导入 {name}</translation>
    </message>
    <message>
        <source>Could not import into {name}</source>
        <translation>无法导入到 {name}</translation>
    </message>
    <message>
        <source>To change the number of tokens or the widths of Q and K together, import Q, K and V from one .npz (File ▸ Import matrix ▸ Q, K and V from one .npz).</source>
        <translation>要同时改变词元数或 Q 与 K 的宽度，请从同一个 .npz 导入 Q、K 和 V（文件 ▸ 导入矩阵 ▸ 从一个 .npz 导入 Q、K 和 V）。</translation>
    </message>
    <message>
        <source>Imported {file} into {name} ({rows}×{cols})</source>
        <translation>已将 {file} 导入到 {name}({rows}×{cols})</translation>
    </message>
    <message>
        <source>Import Q, K and V from one .npz</source>
        <translation>从一个 .npz 导入 Q、K 和 V</translation>
    </message>
    <message>
        <source>Could not import Q, K and V</source>
        <translation>无法导入 Q、K 和 V</translation>
    </message>
    <message>
        <source>Imported Q, K and V from {file}</source>
        <translation>已从 {file} 导入 Q、K 和 V</translation>
    </message>
    <message>
        <source>Did not export {what}: the attention of this session could not be computed ({why}). Change the session to try again.</source>
        <translation>未导出{what}：这个会话的注意力无法计算({why})。修改会话后再试。</translation>
    </message>
    <message>
        <source>Export {name}</source>
        <translation>导出{name}</translation>
    </message>
    <message>
        <source>Could not export {name}</source>
        <translation>无法导出 {name}</translation>
    </message>
    <message>
        <source>Exported {name} to {path}</source>
        <translation>已将 {name} 导出到 {path}</translation>
    </message>
    <message>
        <source>Export the session as a Python script</source>
        <translation>把会话导出为 Python 脚本</translation>
    </message>
    <message>
        <source>Exporting {file}…</source>
        <translation>正在导出 {file}…</translation>
    </message>
    <message>
        <source>Could not export the script</source>
        <translation>无法导出脚本</translation>
    </message>
    <message>
        <source>, its numbers in {file} beside it</source>
        <translation>，数值存放在旁边的 {file} 中</translation>
    </message>
    <message>
        <source>Exported the session as a Python script to {path}{beside} — run it with python3</source>
        <translation>已将会话导出为 Python 脚本 {path}{beside} —— 用 python3 运行</translation>
    </message>
    <message>
        <source>Export the window</source>
        <translation>导出窗口</translation>
    </message>
    <message>
        <source>Export the panel</source>
        <translation>导出面板</translation>
    </message>
    <message>
        <source>Exported {path}</source>
        <translation>已导出 {path}</translation>
    </message>
    <message>
        <source>Could not export</source>
        <translation>无法导出</translation>
    </message>
    <message>
        <source>{path}: the picture could not be written (is the folder writable?)</source>
        <translation>{path}：无法写入图片（文件夹可写吗？）</translation>
    </message>
    <message>
        <source>{name}: could not be read ({kind}: {detail})</source>
        <translation>{name}：无法读取（{kind}：{detail}）</translation>
    </message>
</context>
<context>
    <name>Editor</name>
    <message>
        <source>looks for</source>
        <translation>我在找什么</translation>
    </message>
    <message>
        <source>Query: what each token is looking for (我在找什么)</source>
        <translation>查询（Query）：每个词元在找什么（我在找什么）</translation>
    </message>
    <message>
        <source>is found by</source>
        <translation>我能被什么找到</translation>
    </message>
    <message>
        <source>Key: what each token can be found by (我能被什么找到)</source>
        <translation>键（Key）：每个词元能凭什么被找到（我能被什么找到）</translation>
    </message>
    <message>
        <source>carries</source>
        <translation>找到我后能带走什么</translation>
    </message>
    <message>
        <source>Value: what each token hands over once found (找到我后能带走什么)</source>
        <translation>值（Value）：每个词元被找到后交出什么（找到我后能带走什么）</translation>
    </message>
    <message>
        <source>token vectors (L × D)</source>
        <translation>词元向量（L × D）</translation>
    </message>
    <message>
        <source>X: one vector per token, as the embedding table gives it</source>
        <translation>X：每个词元一个向量，即嵌入表给出的向量</translation>
    </message>
    <message>
        <source>source vectors (L_k × D)</source>
        <translation>源序列向量（L_k × D）</translation>
    </message>
    <message>
        <source>X_src: the vectors of the sequence the queries read (cross-attention): K = X_src·W_kᵀ, V = X_src·W_vᵀ</source>
        <translation>X_src：查询所读取的那个序列的向量（交叉注意力）：K = X_src·W_kᵀ，V = X_src·W_vᵀ</translation>
    </message>
    <message>
        <source>W_q: turns a token vector into its query (row i makes q&apos;s dimension i)</source>
        <translation>W_q：把词元向量变成它的查询（第 i 行得出 q 的第 i 维）</translation>
    </message>
    <message>
        <source>W_k: turns a token vector into its key</source>
        <translation>W_k：把词元向量变成它的键</translation>
    </message>
    <message>
        <source>W_v: turns a token vector into its value</source>
        <translation>W_v：把词元向量变成它的值</translation>
    </message>
    <message>
        <source>W_o: mixes the concatenated heads into the output</source>
        <translation>W_o：把拼接起来的各头混合成输出</translation>
    </message>
    <message>
        <source>Q computed from X and W_q (read-only here: edit X or W_q)</source>
        <translation>由 X 和 W_q 算出的 Q（这里只读：请编辑 X 或 W_q）</translation>
    </message>
    <message>
        <source>K computed from X and W_k (read-only here: edit X or W_k)</source>
        <translation>由 X 和 W_k 算出的 K（这里只读：请编辑 X 或 W_k）</translation>
    </message>
    <message>
        <source>V computed from X and W_v (read-only here: edit X or W_v)</source>
        <translation>由 X 和 W_v 算出的 V（这里只读：请编辑 X 或 W_v）</translation>
    </message>
    <message>
        <source>Type a number, or drag left/right on a cell to scrub it (Shift = fine). Double-click a token to rename it. Shift+click selects a block; Ctrl+C / Ctrl+V copy and paste it.</source>
        <translation>输入数字，或在格子上左右拖动来调节（按住 Shift 更精细）。双击词元可改名。Shift+单击选中一块；Ctrl+C / Ctrl+V 复制粘贴。</translation>
    </message>
    <message>
        <source>Select a cell to drag its value</source>
        <translation>选中一个格子即可拖动它的值</translation>
    </message>
    <message>
        <source>Drag to change the selected cell; every stage follows live</source>
        <translation>拖动来改变选中的格子；每个阶段都随之实时更新</translation>
    </message>
    <message>
        <source>Double-click a token to rename it</source>
        <translation>双击一个词元可给它改名</translation>
    </message>
    <message>
        <source>Rename token</source>
        <translation>词元改名</translation>
    </message>
    <message>
        <source>New name for token {row} ({name}):</source>
        <translation>词元 {row}（{name}）的新名字：</translation>
    </message>
    <message>
        <source>Add a token (a row of zeros in Q, K and V) after the selected row</source>
        <translation>在选中行之后添加一个词元（Q、K、V 各加一行零）</translation>
    </message>
    <message>
        <source>Remove the selected query token (its row in Q, K and V)</source>
        <translation>删除选中的查询词元（它在 Q、K、V 中的行）</translation>
    </message>
    <message>
        <source>Add a key token (a row of zeros in K and V) at the end</source>
        <translation>在末尾添加一个键词元（K 和 V 各加一行零）</translation>
    </message>
    <message>
        <source>Remove the last key token (its row in K and V)</source>
        <translation>删除最后一个键词元（它在 K 和 V 中的行）</translation>
    </message>
    <message>
        <source>+ token</source>
        <translation>+ 词元</translation>
    </message>
    <message>
        <source>− token</source>
        <translation>− 词元</translation>
    </message>
    <message>
        <source>+ query</source>
        <translation>+ 查询</translation>
    </message>
    <message>
        <source>Add a query token (a row of zeros in Q) after the selected query</source>
        <translation>在选中的查询之后添加一个查询词元（Q 加一行零）</translation>
    </message>
    <message>
        <source>− query</source>
        <translation>− 查询</translation>
    </message>
    <message>
        <source>Remove the selected query token (its row in Q)</source>
        <translation>删除选中的查询词元（它在 Q 中的行）</translation>
    </message>
    <message>
        <source>Separate queries</source>
        <translation>分开查询</translation>
    </message>
    <message>
        <source>Cross-attention: the queries get tokens of their own (Q&apos;s rows), the keys and values keep theirs — as a translation&apos;s target reads its source</source>
        <translation>交叉注意力：查询有自己的词元（Q 的行），键和值保留原来的——就像译文读原文</translation>
    </message>
    <message>
        <source>Separate Q</source>
        <translation>分开查询</translation>
    </message>
    <message>
        <source>Add a dimension (a column of zeros) to Q and K together</source>
        <translation>给 Q 和 K 同时添加一维（一列零）</translation>
    </message>
    <message>
        <source>+d Q,K</source>
        <translation>+ Q、K 维</translation>
    </message>
    <message>
        <source>Remove the last dimension of Q and K</source>
        <translation>删除 Q 和 K 的最后一维</translation>
    </message>
    <message>
        <source>−d Q,K</source>
        <translation>− Q、K 维</translation>
    </message>
    <message>
        <source>Add a dimension to V</source>
        <translation>给 V 添加一维</translation>
    </message>
    <message>
        <source>+d V</source>
        <translation>+ V 维</translation>
    </message>
    <message>
        <source>Remove the last dimension of V</source>
        <translation>删除 V 的最后一维</translation>
    </message>
    <message>
        <source>−d V</source>
        <translation>− V 维</translation>
    </message>
    <message>
        <source>Add a dimension to the token vectors X (and a column to every W)</source>
        <translation>给词元向量 X 添加一维（每个 W 加一列）</translation>
    </message>
    <message>
        <source>+D</source>
        <translation>+ X 维</translation>
    </message>
    <message>
        <source>Remove the last dimension of X (and the last column of every W)</source>
        <translation>删除 X 的最后一维（以及每个 W 的最后一列）</translation>
    </message>
    <message>
        <source>−D</source>
        <translation>− X 维</translation>
    </message>
    <message>
        <source>Randomize</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>Fill the editable matrices with random numbers from the seed, then move the seed on by one (the next press gives new numbers)</source>
        <translation>用种子生成的随机数填满可编辑的矩阵，然后种子加一（再按一次就是新的数）</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>Go back to the preset or file as it was opened</source>
        <translation>回到刚打开时的预设或文件</translation>
    </message>
    <message>
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>d Q,K</source>
        <translation>Q、K 维</translation>
    </message>
    <message>
        <source>d V</source>
        <translation>V 维</translation>
    </message>
    <message>
        <source>D</source>
        <translation>X 维</translation>
    </message>
    <message>
        <source>seed </source>
        <translation>种子 </translation>
    </message>
    <message>
        <source>The seed for Randomize: the same seed gives the same numbers; each press moves it on by one</source>
        <translation>“随机”用的种子：同一个种子给出同样的数；每按一次加一</translation>
    </message>
    <message>
        <source>{name}: {text}</source>
        <translation>{name}：{text}</translation>
    </message>
</context>
<context>
    <name>Edits</name>
    <message>
        <source>Q and K</source>
        <translation>Q 和 K</translation>
    </message>
    <message>
        <source>W_q and W_k</source>
        <translation>W_q 和 W_k</translation>
    </message>
    <message>
        <source>W_v (and W_o)</source>
        <translation>W_v（及 W_o）</translation>
    </message>
    <message>
        <source>X and every W</source>
        <translation>X 和每个 W</translation>
    </message>
    <message>
        <source>W_o&apos;s columns</source>
        <translation>W_o 的列</translation>
    </message>
    <message>
        <source>the tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>the query tokens</source>
        <translation>查询词元</translation>
    </message>
    <message>
        <source>The widths of Q, K and V are tied to the K/V heads they share: set K/V heads to as many as heads first (Controls), then change the width</source>
        <translation>Q、K、V 的宽度与它们共享的 K/V 头绑在一起：先把 K/V 头数设成与头数相同（控制面板），再改宽度</translation>
    </message>
    <message>
        <source>cannot write a block of shape {shape} into {name}</source>
        <translation>无法把形状为 {shape} 的块写入 {name}</translation>
    </message>
    <message>
        <source>{name} is computed from X and W_{low} in projected mode: edit X or W_{low} instead</source>
        <translation>投影模式下 {name} 由 X 和 W_{low} 算出：请改为编辑 X 或 W_{low}</translation>
    </message>
    <message>
        <source>{name}: a {rows}×{cols} block at row {top}, column d{left} does not fit in the {height}×{width} matrix</source>
        <translation>{name}：从第 {top} 行、d{left} 列开始的 {rows}×{cols} 块放不进 {height}×{width} 的矩阵</translation>
    </message>
    <message>
        <source>{cell}: {value} is not a finite number within ±{most}</source>
        <translation>{cell}：{value} 不是 ±{most} 以内的有限数</translation>
    </message>
    <message>
        <source>{rows}×{cols} block of {name}</source>
        <translation>{name} 的 {rows}×{cols} 块</translation>
    </message>
    <message>
        <source>Edit {where}</source>
        <translation>编辑 {where}</translation>
    </message>
    <message>
        <source>Swap rows {first} and {second} of {name}</source>
        <translation>交换 {name} 中 {first} 与 {second} 两行</translation>
    </message>
    <message>
        <source>token {number}: a name must be 1–{most} printable characters</source>
        <translation>词元 {number}：名字必须是 1–{most} 个可打印字符</translation>
    </message>
    <message>
        <source>Rename token {old} → {new}</source>
        <translation>重命名词元 {old} → {new}</translation>
    </message>
    <message>
        <source>cannot add a token: at most {most} tokens</source>
        <translation>无法添加词元：最多 {most} 个词元</translation>
    </message>
    <message>
        <source>cannot add a token</source>
        <translation>无法添加词元</translation>
    </message>
    <message>
        <source>Add token {name}</source>
        <translation>添加词元 {name}</translation>
    </message>
    <message>
        <source>cannot remove the last token: attention needs at least one</source>
        <translation>无法删除最后一个词元：注意力至少需要一个</translation>
    </message>
    <message>
        <source>Remove token {name}</source>
        <translation>删除词元 {name}</translation>
    </message>
    <message>
        <source>Turn the causal mask off first: decoder cross-attention has no causal mask (the queries read another sequence, which has no future to hide)</source>
        <translation>请先关闭因果掩码：解码器的交叉注意力没有因果掩码（查询读的是另一个序列，那里没有需要遮住的未来）</translation>
    </message>
    <message>
        <source>Use separate query tokens</source>
        <translation>使用单独的查询词元</translation>
    </message>
    <message>
        <source>Self-attention needs as many queries as keys: there are {queries} and {keys}</source>
        <translation>自注意力需要查询与键一样多：现在有 {n_queries} 个查询词元和 {n_keys} 个词元</translation>
    </message>
    <message>
        <source>Use the same tokens for queries and keys</source>
        <translation>查询和键使用同一组词元</translation>
    </message>
    <message>
        <source>Cannot shuffle the tokens: the attention of this session could not be computed ({why})</source>
        <translation>无法打乱词元：这个会话的注意力无法计算({why})</translation>
    </message>
    <message>
        <source>Shuffle tokens</source>
        <translation>打乱词元</translation>
    </message>
    <message>
        <source>there is no {group} width to change in {mode} mode</source>
        <translation>{mode} 模式下没有可改的 {group} 宽度</translation>
    </message>
    <message>
        <source>cannot add a dimension to {axis}: at most {most}</source>
        <translation>无法给{axis}增加维度：最多 {most} 维</translation>
    </message>
    <message>
        <source>cannot add a dimension to {axis}</source>
        <translation>无法给{axis}增加维度</translation>
    </message>
    <message>
        <source>Add a dimension to {axis}</source>
        <translation>给{axis}增加一个维度</translation>
    </message>
    <message>
        <source>cannot remove the last dimension of {axis}</source>
        <translation>无法删除{axis}的最后一个维度</translation>
    </message>
    <message>
        <source>Remove dimension {at} of {axis}</source>
        <translation>删除{axis}的第 {at} 维</translation>
    </message>
    <message>
        <source>Randomize {names} (seed {seed})</source>
        <translation>随机填充 {names}（种子 {seed}）</translation>
    </message>
    <message>
        <source>Reset to preset</source>
        <translation>重置为预设</translation>
    </message>
    <message>
        <source>{name} is computed from X and W_{low} in projected mode: import X or W_{low} instead, or switch Q, K, V back to direct</source>
        <translation>投影模式下 {name} 由 X 和 W_{low} 算出：请改为导入 X 或 W_{low}，或把 Q、K、V 切回直接编辑</translation>
    </message>
    <message>
        <source>Import {name} {rows}×{cols}</source>
        <translation>导入 {name} {rows}×{cols}</translation>
    </message>
    <message>
        <source>{name} has {rows}, but there are {tokens} (one row per query token)</source>
        <translation>{name} 有 {n_rows} 行，但有 {n_tokens} 个查询词元（每个查询词元一行）</translation>
    </message>
    <message>
        <source>{name} has {rows}, but there are {tokens} (one row per token)</source>
        <translation>{name} 有 {n_rows} 行，但有 {n_tokens} 个词元（每个词元一行）</translation>
    </message>
    <message>
        <source>{name} has {cols}, but {partner} has {partner_cols} (Q and K need the same width d_k)</source>
        <translation>{name} 有 {n_cols} 列，但 {partner} 有 {n_partner_cols} 列（Q 和 K 的宽度 d_k 必须相同）</translation>
    </message>
    <message>
        <source>Import Q, K, V ({tokens}, d = {d}, d_v = {d_v})</source>
        <translation>导入 Q、K、V（{n_tokens} 个词元，d = {d}，d_v = {d_v}）</translation>
    </message>
    <message>
        <source>{what}: {why}</source>
        <translation>{what}：{why}</translation>
    </message>
    <message>
        <source>{heads} no longer divide the widths (Q/K {qk}, V {v}): now {fit}</source>
        <translation>{n_heads} 个头不再整除宽度(Q/K {qk}，V {v})：现在改为 {n_fit} 个头</translation>
    </message>
    <message>
        <source>RoPE is off: each head&apos;s Q/K width d_h = {d_head} is odd now</source>
        <translation>RoPE 已关闭：现在每个头的 Q/K 宽度 d_h = {d_head} 是奇数</translation>
    </message>
    <message>
        <source>cannot switch to projected mode</source>
        <translation>无法切换到投影模式</translation>
    </message>
    <message>
        <source>Set {setting} to {value}</source>
        <translation>把{setting}设为 {value}</translation>
    </message>
</context>
<context>
    <name>Efficient</name>
    <message>
        <source>full L²</source>
        <translation>完整 L²</translation>
    </message>
    <message>
        <source>here</source>
        <translation>当前</translation>
    </message>
    <message>
        <source>multiply-adds: {bill}</source>
        <translation>乘加次数：{bill}</translation>
    </message>
    <message>
        <source>L (tokens)</source>
        <translation>L（词元数）</translation>
    </message>
    <message>
        <source>per head</source>
        <translation>每个头</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source> · head {head}/{heads}</source>
        <translation> · 头 {head}/{heads}</translation>
    </message>
    <message>
        <source>{mine} vs {full} at L = {L} ({ratio}×)</source>
        <translation>L = {L} 时 {mine} 对 {full}({ratio}×)</translation>
    </message>
    <message>
        <source>&lt;b&gt;{cells}&lt;/b&gt; of {table} {noun_en} ({share} %)</source>
        <translation>{table} 个格中算了 &lt;b&gt;{cells}&lt;/b&gt; 个({share} %)</translation>
    </message>
    <message>
        <source>L·k = &lt;b&gt;{scores}&lt;/b&gt; {noun_en}, against k = {k} projected {keys_en}</source>
        <translation>L·k = &lt;b&gt;{scores}&lt;/b&gt; 个分数，对着 k = {k} 个投影后的键</translation>
    </message>
    <message>
        <source>mean KL(A′‖A) = &lt;b&gt;{kl}&lt;/b&gt; nats ({rows} {noun_en})</source>
        <translation>平均 KL(A′‖A) = &lt;b&gt;{kl}&lt;/b&gt; 奈特（{rows} 行）</translation>
    </message>
    <message>
        <source>&lt;b&gt;no&lt;/b&gt; score table</source>
        <translation>&lt;b&gt;没有&lt;/b&gt;分数表</translation>
    </message>
    <message>
        <source>random N(0, 1/k)</source>
        <translation>随机 N(0, 1/k)</translation>
    </message>
    <message>
        <source>mean pooling</source>
        <translation>均值池化</translation>
    </message>
    <message>
        <source> — what is shown is from before the last change</source>
        <translation>——当前显示的是上次修改之前的结果</translation>
    </message>
    <message>
        <source>&lt;b&gt;computing…&lt;/b&gt; {name} on {cells} score cells</source>
        <translation>&lt;b&gt;计算中…&lt;/b&gt;在 {cells} 个分数格上计算{name}</translation>
    </message>
    <message>
        <source>—, O is all zeros</source>
        <translation>—，O 全为零</translation>
    </message>
    <message>
        <source>KL: — (A′ rows are not distributions)</source>
        <translation>KL：—（A′ 的行不是概率分布）</translation>
    </message>
    <message>
        <source>exact mass inside = &lt;b&gt;{mass}&lt;/b&gt;</source>
        <translation>精确权重落在内部的份额 = &lt;b&gt;{mass}&lt;/b&gt;</translation>
    </message>
    <message>
        <source>not computed: outside the pattern (or masked)</source>
        <translation>未计算：在模式之外（或被掩码）</translation>
    </message>
    <message>
        <source>Sliding window</source>
        <translation>滑动窗口</translation>
    </message>
    <message>
        <source>Global + window</source>
        <translation>全局 + 窗口</translation>
    </message>
    <message>
        <source>Sparse Transformer · strided</source>
        <translation>Sparse Transformer · 跳跃</translation>
    </message>
    <message>
        <source>Sparse Transformer · fixed</source>
        <translation>Sparse Transformer · 固定</translation>
    </message>
    <message>
        <source>Linformer (low rank)</source>
        <translation>Linformer（低秩）</translation>
    </message>
    <message>
        <source>Linear attention</source>
        <translation>线性注意力</translation>
    </message>
    <message>
        <source>window</source>
        <translation>窗口</translation>
    </message>
    <message>
        <source>global + window</source>
        <translation>全局 + 窗口</translation>
    </message>
    <message>
        <source>strided</source>
        <translation>跳跃</translation>
    </message>
    <message>
        <source>fixed</source>
        <translation>固定</translation>
    </message>
    <message>
        <source>linear</source>
        <translation>线性</translation>
    </message>
    <message>
        <source>滑动窗口注意力 (Mistral): each token looks only at its nearest neighbours, |i − j| &lt; w (causal: the w latest keys) — the score table becomes a band, L² falls to L·w; the far reach is built by stacking layers, as convolutions do.</source>
        <translation>滑动窗口注意力(Mistral)：每个词元只看最近的邻居，|i − j| &lt; w（因果：最近的 w 个键）——分数表变成一条带，L² 降到 L·w；远处靠层层堆叠够到，和卷积一样。</translation>
    </message>
    <message>
        <source>全局锚点 + 窗口 (Longformer, BigBird): the band of a sliding window, plus g global tokens that every token sees and that see every token.</source>
        <translation>全局锚点 + 窗口(Longformer、BigBird)：滑动窗口的那条带，再加 g 个全局词元——人人都看得见它们，它们也看得见人人。</translation>
    </message>
    <message>
        <source>稀疏/块状注意力 — 跳跃 (Sparse Transformer, Child et al. 2019, strided): the l latest keys and every l-th key further back — about L·(l + L/l) cells, least at l ≈ √L.</source>
        <translation>稀疏/块状注意力——跳跃（Sparse Transformer，Child 等 2019，strided）：最近的 l 个键，再往前每隔 l 个取一个——约 L·(l + L/l) 格，l ≈ √L 时最少。</translation>
    </message>
    <message>
        <source>稀疏/块状注意力 (Sparse Transformer, Child et al. 2019, fixed): one&apos;s own block of l tokens, and the last c positions of every block — its “summary” that later blocks read.</source>
        <translation>稀疏/块状注意力（Sparse Transformer，Child 等 2019，fixed）：自己所在的 l 个词元的块，加上每个块的最后 c 个位置——后面的块读取的「摘要」。</translation>
    </message>
    <message>
        <source>低秩流派 (Linformer, Wang et al. 2020): bet that the attention matrix is low rank — project K and V along L to k rows first (E K, F V with E, F of shape k × L), then attend: L² becomes L·k. Linformer learns E and F; here they are random, N(0, 1/k), drawn with the seed — or mean pooling, each projected row the average of a stretch of L/k positions.</source>
        <translation>低秩流派（Linformer，Wang 等 2020）：赌注意力矩阵是低秩的——先把 K 和 V 沿 L 投影成 k 行（E K、F V，E、F 形状为 k × L），再做注意力：L² 变成 L·k。Linformer 学习 E 和 F；这里它们是用种子抽取的随机数 N(0, 1/k)——或者用均值池化，每个投影行是 L/k 个连续位置的平均。</translation>
    </message>
    <message>
        <source>结合律 (linear attention, Katharopoulos et al. 2020): replace exp(q·k) by φ(q)·φ(k) and regroup, φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1) — no L × L table at all, L·d·d_v instead of L²·d (causal: running sums over the keys).</source>
        <translation>结合律（线性注意力，Katharopoulos 等 2020）：把 exp(q·k) 换成 φ(q)·φ(k) 再重新结合，φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1)——完全没有 L × L 的表，代价是 L·d·d_v 而不是 L²·d（因果：对键做累加和）。</translation>
    </message>
    <message>
        <source>结合律, with softmax kept in expectation (Performer, Choromanski et al. 2021): m positive random features φ(x) = exp(w·x − |x|²/2)/√m, w ~ N(0, I), make φ(q)·φ(k) an unbiased estimate of exp(q·k·scale) — then the same regrouping as linear attention: L·m·(d + d_v), no L × L table.</source>
        <translation>结合律，且在期望意义上保留 softmax（Performer，Choromanski 等 2021）：m 个正的随机特征 φ(x) = exp(w·x − |x|²/2)/√m，w ~ N(0, I)，使 φ(q)·φ(k) 成为 exp(q·k·scale) 的无偏估计——然后像线性注意力一样重新结合：L·m·(d + d_v)，没有 L × L 的表。</translation>
    </message>
    <message>
        <source>A′ (hatched: not computed)</source>
        <translation>A′（斜线：未计算）</translation>
    </message>
    <message>
        <source>A′ = softmax of the session&apos;s scores S over the computed cells only (re-normalised there)</source>
        <translation>A′ = 只在算过的格子上对会话分数 S 做 softmax（在那里重新归一化）</translation>
    </message>
    <message>
        <source>A′ = P·F, a mix (not a distribution)</source>
        <translation>A′ = P·F，一种混合（不是概率分布）</translation>
    </message>
    <message>
        <source>A′ = P·F with P = softmax(Q(EK)ᵀ·scale), L × k: what each query takes from each row of V</source>
        <translation>A′ = P·F，P = softmax(Q(EK)ᵀ·scale)，L × k：每个查询从 V 的每一行取走多少</translation>
    </message>
    <message>
        <source>A′ = P·F over pooled keys</source>
        <translation>A′ = P·F，作用在池化后的键上</translation>
    </message>
    <message>
        <source>A′ = P·F with P = softmax(Q(EK)ᵀ·scale), L × k, and F averaging stretches of positions</source>
        <translation>A′ = P·F，P = softmax(Q(EK)ᵀ·scale)，L × k，F 对连续的位置取平均</translation>
    </message>
    <message>
        <source>A′ = φ(q_i)·φ(k_j) by rows</source>
        <translation>A′ = 按行归一的 φ(q_i)·φ(k_j)</translation>
    </message>
    <message>
        <source>A′ = φ(q_i)·φ(k_j) normalised by rows: the weights linear attention amounts to (it never builds them)</source>
        <translation>A′ = 按行归一化的 φ(q_i)·φ(k_j)：线性注意力相当于使用的权重（它从不真的构造它们）</translation>
    </message>
    <message>
        <source>Which money-saving school to try on the shown head&apos;s own Q, K, V</source>
        <translation>在当前头自己的 Q、K、V 上试哪一派省钱方法</translation>
    </message>
    <message>
        <source>w: a query sees keys with |i − j| &lt; w (causal: i − w &lt; j ≤ i)</source>
        <translation>w：查询能看到 |i − j| &lt; w 的键（因果：i − w &lt; j ≤ i）</translation>
    </message>
    <message>
        <source>l: strided — the l latest keys and every l-th one back; fixed — the block length</source>
        <translation>l：跳跃——最近的 l 个键以及往前每隔 l 个的键；固定——块的长度</translation>
    </message>
    <message>
        <source>c: fixed pattern — the last c positions of every block are its summary, seen by all later tokens</source>
        <translation>c：固定模式——每个块的最后 c 个位置是它的摘要，后面所有词元都能看到</translation>
    </message>
    <message>
        <source>g: the first g tokens are global anchors: they see every token and every token sees them</source>
        <translation>g：前 g 个词元是全局锚点：它们看到每个词元，每个词元也看到它们</translation>
    </message>
    <message>
        <source>k: Linformer projects the L keys and values to k rows (E K, F V with E, F of shape k × L)</source>
        <translation>k：Linformer 把 L 个键和值投影成 k 行（E K、F V，E、F 形状为 k × L）</translation>
    </message>
    <message>
        <source>The seed of Linformer&apos;s random E, F or of Performer&apos;s features W: the same seed draws the same numbers</source>
        <translation>Linformer 随机 E、F 或 Performer 特征 W 的种子：同一个种子抽出同样的数</translation>
    </message>
    <message>
        <source>m: Performer&apos;s number of random features — more features, a closer estimate of softmax, more cost</source>
        <translation>m：Performer 的随机特征数——特征越多，对 softmax 的估计越准，代价也越大</translation>
    </message>
    <message>
        <source>E = F, k × L: random with entries N(0, 1/k) (the Johnson–Lindenstrauss scale; a Linformer learns its own), or mean pooling — row r the average of the r-th stretch of L/k positions</source>
        <translation>E = F，k × L：元素为 N(0, 1/k) 的随机矩阵（Johnson–Lindenstrauss 的尺度；真正的 Linformer 会自己学），或均值池化——第 r 行是第 r 段 L/k 个位置的平均</translation>
    </message>
    <message>
        <source>φ: elu(x) + 1 (the paper&apos;s, always &gt; 0) or relu(x) (a query may then find no weight at all)</source>
        <translation>φ：elu(x) + 1（论文用的，恒 &gt; 0）或 relu(x)（这时一个查询可能一点权重都找不到）</translation>
    </message>
    <message>
        <source>These choices belong to this panel: they are not saved in the session.</source>
        <translation>这些选择只属于本面板：不会保存在会话里。</translation>
    </message>
    <message>
        <source>⚠ Linformer has no causal form: E and F mix every position, later ones too, into each projected key (the paper uses it in encoders) — the mask cannot be kept.</source>
        <translation>⚠ Linformer 没有因果形式：E 和 F 把每个位置（包括后面的）都混进每个投影后的键（论文把它用在编码器里）——掩码无法保留。</translation>
    </message>
    <message>
        <source>ALiBi&apos;s bias is not in φ(q)·φ(k) or Q(EK)ᵀ: only the patterns keep it.</source>
        <translation>ALiBi 的偏置不在 φ(q)·φ(k) 或 Q(EK)ᵀ 里：只有稀疏模式保留它。</translation>
    </message>
    <message>
        <source>Exact mass inside: the exact weight on a pattern&apos;s kept cells. This mechanism keeps no pattern (every key is read, mixed or approximated), so there is none.</source>
        <translation>精确权重落在内部的份额：精确权重落在某个稀疏模式所保留的格子上的部分。这种机制没有保留格子的模式（每个键都被读到，或混合，或近似），所以没有这个份额。</translation>
    </message>
    <message>
        <source>φ takes Q and K as the scores use them, without the scale (as in the paper).</source>
        <translation>φ 直接作用在分数所用的 Q 和 K 上，不带缩放（与论文一致）。</translation>
    </message>
    <message>
        <source>② exact A = softmax(S)</source>
        <translation>② 精确的 A = softmax(S)</translation>
    </message>
    <message>
        <source>The session&apos;s own weights ② of the shown head, as the Weights panel shows them</source>
        <translation>当前头在会话中的真实权重 ②，与权重面板显示的一致</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>种子</translation>
    </message>
</context>
<context>
    <name>Flash</name>
    <message>
        <source>Rows per query block: how many queries share one pass over the keys</source>
        <translation>每个查询块的行数：多少个查询共用一遍对键的扫描</translation>
    </message>
    <message>
        <source>Keys per tile: how many columns of S are made at once (B_r = B_c = 1 is the online softmax of one row, Milakov &amp; Gimelshein 2018)</source>
        <translation>每块的键数：一次算出 S 的多少列（B_r = B_c = 1 就是单行的在线 softmax，Milakov &amp; Gimelshein 2018）</translation>
    </message>
    <message>
        <source>query block </source>
        <translation>查询块 </translation>
    </message>
    <message>
        <source>Which block of query rows the stepper follows (it follows the row you select in the other panels too)</source>
        <translation>单步演示跟随哪个查询行块（也会跟随你在其他面板中选中的行）</translation>
    </message>
    <message>
        <source>▶ Play</source>
        <translation>▶ 播放</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>dimension</source>
        <translation>维度</translation>
    </message>
    <message>
        <source> of {blocks}</source>
        <translation>（共 {blocks} 块）</translation>
    </message>
    <message>
        <source>step {k} of {n}</source>
        <translation>第 {k} 步，共 {n} 步</translation>
    </message>
    <message>
        <source>O stays hidden until the lesson reveals ③.</source>
        <translation>课程揭晓 ③ 之前，O 保持隐藏。</translation>
    </message>
    <message>
        <source>③ of head {head} (softmax(S)·V, before the heads are joined and W_o)</source>
        <translation>头 {head} 的 ③（softmax(S)·V，在各头拼接和 W_o 之前）</translation>
    </message>
    <message>
        <source>③ of head {head} (softmax(S)·V, before the heads are joined)</source>
        <translation>头 {head} 的 ③（softmax(S)·V，在各头拼接之前）</translation>
    </message>
    <message>
        <source>key tile {tile} lies wholly above the diagonal — skipped, never computed</source>
        <translation>键块 {tile} 完全在对角线上方——跳过，从不计算</translation>
    </message>
    <message>
        <source>masked (causal)</source>
        <translation>被掩码（因果）</translation>
    </message>
    <message>
        <source>key tile {tile}, computed at step {number}</source>
        <translation>键块 {tile}，在第 {number} 步计算</translation>
    </message>
    <message>
        <source>❚❚ Pause</source>
        <translation>❚❚ 暂停</translation>
    </message>
    <message>
        <source>&lt;b&gt;FlashAttention&lt;/b&gt; (Dao et al. 2022, Algorithm 1): S is made one B&lt;sub&gt;r&lt;/sub&gt; × B&lt;sub&gt;c&lt;/sub&gt; tile at a time; each query row keeps a running max m, a running sum ℓ and its output so far, rescaled by exp(m&lt;sub&gt;old&lt;/sub&gt; − m&lt;sub&gt;new&lt;/sub&gt;) when the max rises — softmax(S)·V exactly, without ever holding the L × L matrix.</source>
        <translation>&lt;b&gt;FlashAttention&lt;/b&gt;（Dao 等 2022，算法 1）：S 每次只算一个 B&lt;sub&gt;r&lt;/sub&gt; × B&lt;sub&gt;c&lt;/sub&gt; 的块；每个查询行维护一个运行最大值 m、一个运行和 ℓ 以及到目前为止的输出，最大值上升时乘以 exp(m&lt;sub&gt;old&lt;/sub&gt; − m&lt;sub&gt;new&lt;/sub&gt;) 重新缩放——精确得到 softmax(S)·V，却从不存下 L × L 的矩阵。</translation>
    </message>
    <message>
        <source>The running max before this tile (−∞: no key seen yet)</source>
        <translation>本块之前的运行最大值（−∞：还没见过任何键）</translation>
    </message>
    <message>
        <source>m̃ = the largest score of this row in this tile</source>
        <translation>m̃ = 本行在本块中的最大分数</translation>
    </message>
    <message>
        <source>e^(m_old − m_new): what ℓ and Õ so far are multiplied by: 1 when the max stays, below 1 when this tile raised it (0 at the first tile: nothing to rescale)</source>
        <translation>e^(m_old − m_new)：已有的 ℓ 和 Õ 要乘的数：最大值不变时为 1，本块抬高了最大值时小于 1（第一块为 0：没有要缩放的）</translation>
    </message>
    <message>
        <source>The running sum before this tile: Σ e^(s − m_old) over the keys seen</source>
        <translation>本块之前的运行和：对已见过的键求 Σ e^(s − m_old)</translation>
    </message>
    <message>
        <source>Query block {block} of {blocks}: rows {rows}. The stepper follows this block; every block runs the same steps on its own rows.</source>
        <translation>查询块 {block}/{blocks}：行 {rows}。单步演示跟随这个块；每个块都在自己的行上执行同样的步骤。</translation>
    </message>
    <message>
        <source> &lt;i&gt;Causal mask: key {tile_word_en} {tiles} of this block lie wholly above the diagonal (every cell masked) — skipped, never computed&lt;/i&gt; ({skipped} skipped in the whole head).</source>
        <translation> &lt;i&gt;因果掩码：本块的键块 {tiles} 完全在对角线上方（每格都被掩码）——跳过，从不计算&lt;/i&gt;（整个头共跳过 {n_skipped} 块）。</translation>
    </message>
    <message>
        <source>{rows} {see_en} their first keys: m starts here. </source>
        <translation>有 {n_rows} 行第一次见到键：m 从这里开始。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Step {step} of {steps}&lt;/b&gt; (key tile {tile} of {tiles}): S&lt;sub&gt;ij&lt;/sub&gt; = Q&lt;sub&gt;i&lt;/sub&gt;·K&lt;sub&gt;j&lt;/sub&gt;ᵀ·scale for rows {rows} × keys {keys} ({height} × {width} = {cells}). </source>
        <translation>&lt;b&gt;第 {step} 步，共 {steps} 步&lt;/b&gt;（键块 {tile}/{tiles}）：对行 {rows} × 键 {keys} 计算 S&lt;sub&gt;ij&lt;/sub&gt; = Q&lt;sub&gt;i&lt;/sub&gt;·K&lt;sub&gt;j&lt;/sub&gt;ᵀ·scale（{height} × {width} = {n_cells} 格）。</translation>
    </message>
    <message>
        <source>m old</source>
        <translation>m 旧</translation>
    </message>
    <message>
        <source>m̃ tile</source>
        <translation>m̃ 本块</translation>
    </message>
    <message>
        <source>m new</source>
        <translation>m 新</translation>
    </message>
    <message>
        <source>rescale</source>
        <translation>缩放</translation>
    </message>
    <message>
        <source>ℓ old</source>
        <translation>ℓ 旧</translation>
    </message>
    <message>
        <source>ℓ new</source>
        <translation>ℓ 新</translation>
    </message>
    <message>
        <source> and {more} more</source>
        <translation> 等另外 {more} 行</translation>
    </message>
    <message>
        <source>The max rises in {rows}: their ℓ and Õ so far are rescaled ({factors}{more}). </source>
        <translation>有 {n_rows} 行的最大值上升：它们已有的 ℓ 和 Õ 被重新缩放({factors}{more})。</translation>
    </message>
    <message>
        <source>No row&apos;s max rises: the sums go on with factor 1. </source>
        <translation>没有哪一行的最大值上升：累加和以因子 1 继续。</translation>
    </message>
    <message>
        <source>O = Õ / ℓ is the softmax-weighted mean of the values seen so far.</source>
        <translation>O = Õ / ℓ 是到目前为止所见值的 softmax 加权平均。</translation>
    </message>
    <message>
        <source>After step {steps}, O = Õ / ℓ will be this block&apos;s rows of {head} — step to the end (or press Play).</source>
        <translation>第 {steps} 步之后，O = Õ / ℓ 将等于本块在{head}中的那些行——走到最后一步（或按播放）。</translation>
    </message>
    <message>
        <source>, {skipped} skipped</source>
        <translation>，跳过 {skipped} 块</translation>
    </message>
    <message>
        <source>&lt;b&gt;O = Õ / ℓ equals {head}&lt;/b&gt; for this block: max |difference| {block_difference}. Every block of the head with the same update ({computed} computed{skipped}): max |difference| from {head} {whole_difference} — the same numbers up to rounding, not an approximation.</source>
        <translation>&lt;b&gt;O = Õ / ℓ 等于{head}&lt;/b&gt;（本块）：最大 |差| {block_difference}。整个头的每个块用同样的更新（计算了 {n_computed} 块{skipped}）：与{head}的最大 |差| {whole_difference}——在舍入误差内完全相同，不是近似。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Memory&lt;/b&gt;: the largest S tile held at once has {cells}; the whole S or A would have L&lt;sub&gt;q&lt;/sub&gt;·L&lt;sub&gt;k&lt;/sub&gt; = {full} ({share} %) — never held. On chip per step (Q&lt;sub&gt;i&lt;/sub&gt;, K&lt;sub&gt;j&lt;/sub&gt;, V&lt;sub&gt;j&lt;/sub&gt;, S&lt;sub&gt;ij&lt;/sub&gt;, O&lt;sub&gt;i&lt;/sub&gt;, ℓ, m): {on_chip} numbers.</source>
        <translation>&lt;b&gt;内存&lt;/b&gt;：同一时刻存下的最大 S 块有 {n_cells} 格；完整的 S 或 A 会有 L&lt;sub&gt;q&lt;/sub&gt;·L&lt;sub&gt;k&lt;/sub&gt; = {full} 格（该块占 {share} %）——从不存下。每步片上(Q&lt;sub&gt;i&lt;/sub&gt;、K&lt;sub&gt;j&lt;/sub&gt;、V&lt;sub&gt;j&lt;/sub&gt;、S&lt;sub&gt;ij&lt;/sub&gt;、O&lt;sub&gt;i&lt;/sub&gt;、ℓ、m)：{on_chip} 个数。</translation>
    </message>
    <message>
        <source> (L&lt;sub&gt;q&lt;/sub&gt;·L&lt;sub&gt;k&lt;/sub&gt; in place of N²)</source>
        <translation>（以 L&lt;sub&gt;q&lt;/sub&gt;·L&lt;sub&gt;k&lt;/sub&gt; 代替 N²）</translation>
    </message>
    <message>
        <source>&lt;b&gt;HBM reads + writes, the paper&apos;s model&lt;/b&gt; (Theorem 2, Θ without constants — not a measurement), N = {n}{rectangle}, d = d&lt;sub&gt;h&lt;/sub&gt; = {d}, M = {m} numbers ({sram}): standard attention N·d + N² ≈ {standard}; FlashAttention N²·d²/M ≈ {flash}</source>
        <translation>&lt;b&gt;HBM 读写次数，按论文的模型&lt;/b&gt;（定理 2，Θ 去掉常数——不是实测），N = {n}{rectangle}，d = d&lt;sub&gt;h&lt;/sub&gt; = {d}，M = {m} 个数（{sram}）：标准注意力 N·d + N² ≈ {standard}；FlashAttention N²·d²/M ≈ {flash}</translation>
    </message>
    <message>
        <source> — {ratio}× fewer. Algorithm 1 would take B&lt;sub&gt;c&lt;/sub&gt; = ⌈M/4d⌉ = {b_c}, B&lt;sub&gt;r&lt;/sub&gt; = min(B&lt;sub&gt;c&lt;/sub&gt;, d) = {b_r}.</source>
        <translation>——少 {ratio}×。算法 1 会取 B&lt;sub&gt;c&lt;/sub&gt; = ⌈M/4d⌉ = {b_c}，B&lt;sub&gt;r&lt;/sub&gt; = min(B&lt;sub&gt;c&lt;/sub&gt;, d) = {b_r}。</translation>
    </message>
    <message>
        <source>. Here N·d &amp;lt; M: the whole head fits on chip, so either way Q, K, V are read once; the theorem speaks for d ≤ M ≤ N·d.</source>
        <translation>。这里 N·d &amp;lt; M：整个头都放得进片上，两种做法都只读一遍 Q、K、V；定理说的是 d ≤ M ≤ N·d 的情形。</translation>
    </message>
    <message>
        <source>. Here d &amp;gt; M: not even one row fits on chip; the theorem speaks for d ≤ M ≤ N·d.</source>
        <translation>。这里 d &amp;gt; M：片上连一行都放不下；定理说的是 d ≤ M ≤ N·d 的情形。</translation>
    </message>
    <message>
        <source>◀ Previous</source>
        <translation>◀ 上一步</translation>
    </message>
    <message>
        <source>The step before (Alt+←)</source>
        <translation>前一步(Alt+←)</translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation>下一步 ▶</translation>
    </message>
    <message>
        <source>The next tile (Alt+→)</source>
        <translation>下一个块(Alt+→)</translation>
    </message>
    <message>
        <source>Step through the tiles one after another (Alt+P to start or stop)</source>
        <translation>一块接一块地走完（Alt+P 开始或停止）</translation>
    </message>
    <message>
        <source>Which step: the tiles computed so far (← → once it has the focus)</source>
        <translation>第几步：到目前为止算过的块（获得焦点后可用 ← →）</translation>
    </message>
    <message>
        <source>Each query row&apos;s running max m and running sum ℓ, before and after this tile</source>
        <translation>每个查询行在本块前后的运行最大值 m 和运行和 ℓ</translation>
    </message>
    <message>
        <source>Õ = Σ e^(s − m)·v over the keys seen so far: rescaled by e^(m_old − m_new) whenever the max rises, divided by ℓ only at the end (FlashAttention-2 keeps this)</source>
        <translation>Õ = 对已见过的键求 Σ e^(s − m)·v：每当最大值上升就乘以 e^(m_old − m_new)，只在最后除以 ℓ（FlashAttention-2 维护的就是它）</translation>
    </message>
    <message>
        <source>O = Õ / ℓ: Algorithm 1 keeps O divided by ℓ after every tile — the softmax-weighted mean of the values seen so far</source>
        <translation>O = Õ / ℓ：算法 1 在每个块之后都保持 O 已除以 ℓ——即到目前为止所见值的 softmax 加权平均</translation>
    </message>
    <message>
        <source>query (this block)</source>
        <translation>查询（本块）</translation>
    </message>
    <message>
        <source>score S</source>
        <translation>分数 S</translation>
    </message>
    <message>
        <source>Õ (unnormalised)</source>
        <translation>Õ（未归一化）</translation>
    </message>
    <message>
        <source>The SRAM size M assumed for the paper&apos;s count of HBM accesses: the paper&apos;s “M around 100KB”, or one streaming multiprocessor&apos;s shared memory on an A100 or an H100 (counted in numbers of 2 bytes, fp16)</source>
        <translation>论文统计 HBM 访问次数时假设的 SRAM 大小 M：论文的「M 约 100KB」，或 A100、H100 上一个流式多处理器的共享内存（按 2 字节的 fp16 数计）</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>SRAM M:</source>
        <translation>SRAM 大小 M：</translation>
    </message>
    <message>
        <source>100 KB (the paper)</source>
        <translation>100 KB（论文）</translation>
    </message>
</context>
<context>
    <name>Generation</name>
    <message>
        <source>1 token/s</source>
        <translation>每秒 1 个词元</translation>
    </message>
    <message>
        <source>2 tokens/s</source>
        <translation>每秒 2 个词元</translation>
    </message>
    <message>
        <source>5 tokens/s</source>
        <translation>每秒 5 个词元</translation>
    </message>
    <message>
        <source>10 tokens/s</source>
        <translation>每秒 10 个词元</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>K cache</source>
        <translation>K 缓存</translation>
    </message>
    <message>
        <source>V cache</source>
        <translation>V 缓存</translation>
    </message>
    <message>
        <source>new output</source>
        <translation>新输出</translation>
    </message>
    <message>
        <source>dimension</source>
        <translation>维度</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>&lt;b&gt;Generation&lt;/b&gt;: cannot decode this session — {why}</source>
        <translation>&lt;b&gt;生成&lt;/b&gt;：无法解码这个会话——{why}</translation>
    </message>
    <message>
        <source>prefill</source>
        <translation>预填充</translation>
    </message>
    <message>
        <source>decode step {step}</source>
        <translation>解码第 {step} 步</translation>
    </message>
    <message>
        <source>{n} new query attends</source>
        <translation>{n} 个新查询关注</translation>
    </message>
    <message>
        <source>{n} new queries attend</source>
        <translation>{n} 个新查询关注</translation>
    </message>
    <message>
        <source>to all {rows} of the source, computed once and fixed (a decoder&apos;s own self-attention cache is the one that grows)</source>
        <translation>源序列全部 {n_rows} 行 k 和 v，它们只算一次、固定不变（会增长的是解码器自身的自注意力缓存）</translation>
    </message>
    <message>
        <source>to the {n} cached k and v rows; earlier rows are not computed again</source>
        <translation>缓存中的 {n} 行 k 和 v；之前的行不再重算</translation>
    </message>
    <message>
        <source> The cache holds {kv_heads} for {query_heads} ({name}).</source>
        <translation>缓存为 {n_query_heads} 个查询头保存 {n_kv_heads} 个 K/V 头({name})。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Generation · KV cache&lt;/b&gt; — t = {t} of {n} ({kind}): {new} {read}.{grouped}</source>
        <translation>&lt;b&gt;生成 · KV 缓存&lt;/b&gt; —— t = {t}/{n}({kind})：{new}{read}。{grouped}</translation>
    </message>
    <message>
        <source>query (head {head})</source>
        <translation>查询（头 {head}）</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>&lt;b&gt;computing…&lt;/b&gt; full causal attention</source>
        <translation>&lt;b&gt;计算中…&lt;/b&gt;完整的因果注意力</translation>
    </message>
    <message>
        <source>cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>full causal attention</source>
        <translation>完整的因果注意力</translation>
    </message>
    <message>
        <source> — the heatmap is from before the last change</source>
        <translation>——热力图是上次修改之前的结果</translation>
    </message>
    <message>
        <source>&lt;b&gt;computing…&lt;/b&gt; the check against {what} of {n} tokens</source>
        <translation>&lt;b&gt;计算中…&lt;/b&gt;与 {n} 个词元的{what}对照检查</translation>
    </message>
    <message>
        <source>causal attention</source>
        <translation>因果注意力</translation>
    </message>
    <message>
        <source>No causal mask here; the decode is causal anyway.</source>
        <translation>这里没有因果掩码；但解码本身总是因果的。</translation>
    </message>
    <message>
        <source>Decoding is causal by nature: a token is generated before the later ones exist. The decode here is computed causally, so it matches the main heatmaps only once the mask is on.</source>
        <translation>解码天生是因果的：生成一个词元时，后面的词元还不存在。这里的解码按因果方式计算，所以只有打开掩码后才与主热图一致。</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#1a7f37&apos;&gt;✓&lt;/span&gt; The decoded output rows stacked equal full {what}: largest difference {diff} — caching K and V changes the work, not the numbers.</source>
        <translation>&lt;span style=&apos;color:#1a7f37&apos;&gt;✓&lt;/span&gt; 逐步解码的输出行叠起来等于完整的{what}：最大差 {diff}——缓存 K 和 V 改变的是工作量，不是数值。</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#b00020&apos;&gt;✗&lt;/span&gt; The decoded rows differ from full {what} by up to {diff}.</source>
        <translation>&lt;span style=&apos;color:#b00020&apos;&gt;✗&lt;/span&gt; 解码得到的行与完整的{what}最多相差 {diff}。</translation>
    </message>
    <message>
        <source>&lt;b&gt;A trap&lt;/b&gt;: &lt;code&gt;is_causal=True&lt;/code&gt; with a single decode query</source>
        <translation>&lt;b&gt;一个陷阱&lt;/b&gt;：单个解码查询配 &lt;code&gt;is_causal=True&lt;/code&gt;</translation>
    </message>
    <message>
        <source>PyTorch&apos;s &lt;code&gt;scaled_dot_product_attention(q, k, v, is_causal=True)&lt;/code&gt; aligns the mask to the top-left when q has fewer rows than k, so a single decode query (1 × t) sees only key 0. A decode step needs an explicit mask (or none: the newest query may see every cached key).</source>
        <translation>当 q 的行数少于 k 时，PyTorch 的 &lt;code&gt;scaled_dot_product_attention(q, k, v, is_causal=True)&lt;/code&gt; 把掩码对齐到左上角，于是单个解码查询(1 × t)只能看到键 0。解码步需要显式的掩码（或者不要掩码：最新的查询可以看到缓存中的每个键）。</translation>
    </message>
    <message>
        <source>◀ Back</source>
        <translation>◀ 后退</translation>
    </message>
    <message>
        <source>One step back: the cache loses the newest token</source>
        <translation>后退一步：缓存丢掉最新的词元</translation>
    </message>
    <message>
        <source>Step ▶</source>
        <translation>单步 ▶</translation>
    </message>
    <message>
        <source>Decode the next token: its k and v join the cache, its query attends to all of it</source>
        <translation>解码下一个词元：它的 k 和 v 加入缓存，它的查询关注缓存中的全部内容</translation>
    </message>
    <message>
        <source>Decode one token after another from the start, at the chosen speed</source>
        <translation>按所选速度从头逐个解码词元</translation>
    </message>
    <message>
        <source>How fast Play decodes</source>
        <translation>播放时的解码速度</translation>
    </message>
    <message>
        <source>Tokens in the K/V cache</source>
        <translation>K/V 缓存中的词元数</translation>
    </message>
    <message>
        <source>prefill </source>
        <translation>预填充 </translation>
    </message>
    <message>
        <source>Tokens the prompt puts in the cache in one step (the first, slow step)</source>
        <translation>提示词一步放进缓存的词元数（第一步，最慢的一步）</translation>
    </message>
    <message>
        <source>Turn the causal mask on</source>
        <translation>打开因果掩码</translation>
    </message>
    <message>
        <source>So the main heatmaps show what the decode computes</source>
        <translation>让主热图显示解码所计算的内容</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>multiply-adds per step</source>
        <translation>每步的乘加次数</translation>
    </message>
    <message>
        <source>multiply-adds so far</source>
        <translation>累计的乘加次数</translation>
    </message>
    <message>
        <source>bytes read per step</source>
        <translation>每步读取的字节数</translation>
    </message>
    <message>
        <source>bytes read so far</source>
        <translation>累计读取的字节数</translation>
    </message>
    <message>
        <source>with the K/V cache</source>
        <translation>有 K/V 缓存</translation>
    </message>
    <message>
        <source>without: K, V and attention again every step</source>
        <translation>没有缓存：每一步都重算 K、V 和注意力</translation>
    </message>
    <message>
        <source>t (tokens decoded)</source>
        <translation>t（已解码的词元数）</translation>
    </message>
    <message>
        <source>What the curves count, per step or added up to t</source>
        <translation>曲线计的是什么：每一步的，或累计到 t 的</translation>
    </message>
    <message>
        <source>Cost:</source>
        <translation>代价：</translation>
    </message>
    <message>
        <source> With a K/V head per query head it would be {full}: sharing {kv_heads} among {heads} saves {times}×.</source>
        <translation>若每个查询头各配一个 K/V 头，会是 {full}：{n_heads} 个头共用 {n_kv_heads} 个 K/V 头，省下 {times} 倍。</translation>
    </message>
    <message>
        <source>the one token</source>
        <translation>这一个词元</translation>
    </message>
    <message>
        <source>all {length} tokens</source>
        <translation>全部 {length} 个词元</translation>
    </message>
    <message>
        <source>K/V cache: {per_token} per token in float16 ({single_per_token} in float32), {at_length} at L = {length}</source>
        <translation>K/V 缓存：float16 下每个词元 {per_token}（float32 下 {single_per_token}），L = {length} 时共 {at_length}</translation>
    </message>
    <message>
        <source>The source&apos;s K/V cache is fixed: {rows} rows × {per_row} = {total} in float16, whatever the number of queries</source>
        <translation>源序列的 K/V 缓存是固定的：{rows} 行 × {per_row} = {total}（float16），与查询的数量无关</translation>
    </message>
    <message>
        <source>{cache} (this session is one layer: a model multiplies by its layers).{grouped} Decoding {tokens}: {with_cache} multiply-adds with the cache, {without_cache} without ({ratio}×).</source>
        <translation>{cache}（这个会话只有一层：模型还要再乘以层数）。{grouped}解码{tokens}：有缓存 {with_cache} 次乘加，没有缓存 {without_cache} 次（{ratio}×）。</translation>
    </message>
    <message>
        <source>multiply-adds</source>
        <translation>乘加次数</translation>
    </message>
    <message>
        <source>bytes read (float32)</source>
        <translation>读取的字节数（float32）</translation>
    </message>
</context>
<context>
    <name>Heads</name>
    <message>
        <source>multi-head attention</source>
        <translation>多头注意力</translation>
    </message>
    <message>
        <source>multi-query attention</source>
        <translation>多查询注意力</translation>
    </message>
    <message>
        <source>grouped-query attention</source>
        <translation>分组查询注意力</translation>
    </message>
    <message>
        <source>none (× 1)</source>
        <translation>不缩放(× 1)</translation>
    </message>
    <message>
        <source>{scale} (custom)</source>
        <translation>{scale}（自定义）</translation>
    </message>
    <message>
        <source>head {head}: click to show it in the Scores, Weights and Output panels</source>
        <translation>头 {head}：点击后在分数、权重和输出面板中显示它</translation>
    </message>
    <message>
        <source>Show each head&apos;s weights A_h = softmax(S_h)</source>
        <translation>显示每个头的权重 A_h = softmax(S_h)</translation>
    </message>
    <message>
        <source>Show each head&apos;s scores S_h = Q_h K_hᵀ · scale</source>
        <translation>显示每个头的分数 S_h = Q_h K_hᵀ · scale</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>score</source>
        <translation>分数</translation>
    </message>
    <message>
        <source>head {head}: hidden until {stage} is revealed</source>
        <translation>头 {head}：揭晓 {stage} 之前隐藏</translation>
    </message>
    <message>
        <source>head {head}: weight[{q} → {k}] = {value}</source>
        <translation>头 {head}：权重[{q} → {k}] = {value}</translation>
    </message>
    <message>
        <source>head {head}: score[{q} → {k}] = {value}</source>
        <translation>头 {head}：分数[{q} → {k}] = {value}</translation>
    </message>
    <message>
        <source>reads K/V head {kv} of {kv_heads}, with query heads {heads}</source>
        <translation>读取第 {kv} 个 K/V 头（共 {kv_heads} 个），与查询头 {heads} 共用</translation>
    </message>
    <message>
        <source>masked (the key is in the future)</source>
        <translation>被掩码（这个键在未来）</translation>
    </message>
    <message>
        <source>click to show this head in the Scores, Weights and Output panels</source>
        <translation>单击即在分数、权重和输出面板中显示这个头</translation>
    </message>
    <message>
        <source>head {head}</source>
        <translation>头 {head}</translation>
    </message>
    <message>
        <source>scale {scale}</source>
        <translation>缩放 {scale}</translation>
    </message>
    <message>
        <source>weights A_h = softmax(S_h)</source>
        <translation>权重 A_h = softmax(S_h)</translation>
    </message>
    <message>
        <source>scores S_h = Q_h K_hᵀ · scale</source>
        <translation>分数 S_h = Q_h K_hᵀ · scale</translation>
    </message>
    <message>
        <source> They share {kv_heads} ({name}): heads of one colour read the same K and V, {each} query heads to each, in Hugging Face&apos;s repeat_kv order.</source>
        <translation>它们共享 {n_kv_heads} 个 K/V 头({name})：同色的头读同一份 K 和 V，每份 K/V 对应 {each} 个查询头，顺序与 Hugging Face 的 repeat_kv 相同。</translation>
    </message>
    <message>
        <source>, {kv_heads}</source>
        <translation>，{n_kv_heads} 个 K/V 头</translation>
    </message>
    <message>
        <source>&lt;b&gt;Heads&lt;/b&gt;: H = {heads} × d_h = {d_head}, scale {scale}{gqa}</source>
        <translation>&lt;b&gt;多头&lt;/b&gt;：H = {heads} × d_h = {d_head}，缩放 {scale}{gqa}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Heads&lt;/b&gt;: D = {D} cut into H = {heads} slices of d_h = {d_head}; each head attends on its own with scale {scale}.{shared} Shown: each head&apos;s {what} (rows: query, columns: key). Click a head to show it in the other panels.</source>
        <translation>&lt;b&gt;多头&lt;/b&gt;：把 D = {D} 维切成 H = {heads} 份，每份 d_h = {d_head} 维；每个头各自独立跑一遍注意力，缩放 {scale}。{shared}显示的是每个头的{what}（行：查询，列：键）。点击一个头，其他面板就显示它。</translation>
    </message>
    <message>
        <source>&lt;b&gt;{stage} hidden&lt;/b&gt; — each head&apos;s {mode} appear once {stage} is revealed</source>
        <translation>&lt;b&gt;{stage} 已隐藏&lt;/b&gt; —— 揭晓 {stage} 后才显示每个头的{mode}</translation>
    </message>
    <message>
        <source> (the selected head {head} is not among them)</source>
        <translation>（选中的头 {head} 不在其中）</translation>
    </message>
    <message>
        <source>showing {shown} of {heads}{extra}</source>
        <translation>显示 {shown} 个头，共 {n_heads} 个{extra}</translation>
    </message>
    <message>
        <source>fully masked: {rows}</source>
        <translation>整行被掩码：{rows}</translation>
    </message>
    <message>
        <source>Number of heads H: only divisors of the widths of Q/K and V are offered</source>
        <translation>头数 H：只提供能整除 Q/K 与 V 宽度的数</translation>
    </message>
    <message>
        <source>weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>scores</source>
        <translation>分数</translation>
    </message>
    <message>
        <source>heads H</source>
        <translation>头数 H</translation>
    </message>
    <message>
        <source>show</source>
        <translation>显示</translation>
    </message>
</context>
<context>
    <name>Heatmap</name>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>query tokens</source>
        <translation>查询词元</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>key tokens</source>
        <translation>键词元</translation>
    </message>
    <message>
        <source>dimension</source>
        <translation>维度</translation>
    </message>
    <message>
        <source>score</source>
        <translation>分数</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Hidden until revealed — click the cell you expect to be darkest</source>
        <translation>揭晓之前隐藏 —— 单击你认为颜色最深的格子</translation>
    </message>
    <message>
        <source>Hidden until revealed — which rows of V will this row mix?</source>
        <translation>揭晓之前隐藏 —— 这一行会混合 V 的哪些行？</translation>
    </message>
    <message>
        <source>, head {head}/{heads}</source>
        <translation>，头 {head}/{heads}</translation>
    </message>
    <message>
        <source>guess first: click the cell you expect to be darkest, then reveal</source>
        <translation>先猜：点击你认为最深的格子，再揭晓</translation>
    </message>
    <message>
        <source>which rows of V will each output mix? Think, then reveal</source>
        <translation>每个输出会混合 V 的哪些行？想好了再揭晓</translation>
    </message>
    <message>
        <source>&lt;b&gt;{stage} hidden&lt;/b&gt; — {task}</source>
        <translation>&lt;b&gt;{stage} 已隐藏&lt;/b&gt; —— {task}</translation>
    </message>
    <message>
        <source>, {n} heads side by side</source>
        <translation>，{n} 个头并排</translation>
    </message>
    <message>
        <source>: each head mixes the rows of V by its weights, then W_o mixes the heads</source>
        <translation>：每个头按自己的权重混合 V 的行，再由 W_o 混合各头</translation>
    </message>
    <message>
        <source>: each row mixes the rows of V by its weights</source>
        <translation>：每一行按权重混合 V 的各行</translation>
    </message>
    <message>
        <source>: one dot product per cell</source>
        <translation>：每格一个点积</translation>
    </message>
    <message>
        <source>score[{q} → {k}]</source>
        <translation>分数[{q} → {k}]</translation>
    </message>
    <message>
        <source>× scale {scale}</source>
        <translation>× 缩放 {scale}</translation>
    </message>
    <message>
        <source>+ ALiBi bias −m·|i − j| = {bias}</source>
        <translation>+ ALiBi 偏置 −m·|i − j| = {bias}</translation>
    </message>
    <message>
        <source>÷ temperature {t}</source>
        <translation>÷ 温度 {t}</translation>
    </message>
    <message>
        <source>masked: set to −∞ before the softmax (the key is in the future)</source>
        <translation>被掩码：softmax 之前设为 −∞（这个键在未来）</translation>
    </message>
    <message>
        <source>masked</source>
        <translation>已掩码</translation>
    </message>
    <message>
        <source>fully masked: {rows} — no key to attend to, weights 0</source>
        <translation>整行被掩码：{rows} —— 没有可关注的键，权重为 0</translation>
    </message>
    <message>
        <source>; ○ marks each query&apos;s strongest key (the alignment)</source>
        <translation>；○ 标出每个查询最强的键（对齐）</translation>
    </message>
    <message>
        <source>: each row sums to 1</source>
        <translation>：每行和为 1</translation>
    </message>
    <message>
        <source>weight[{q} → {k}] = 0
masked: the score was set to −∞</source>
        <translation>权重[{q} → {k}] = 0
被掩码：分数被设为 −∞</translation>
    </message>
    <message>
        <source>weight[{q} → {k}] = {weight}
= exp(S) / Σ exp(S over the row of {q}), S = {score}</source>
        <translation>权重[{q} → {k}] = {weight}
= exp(S) / Σ exp({q} 这一行的 S)，S = {score}</translation>
    </message>
    <message>
        <source>Reveal {stage}</source>
        <translation>揭晓 {stage}</translation>
    </message>
    <message>
        <source>Show this stage (guess first: click the cell you expect to be darkest)</source>
        <translation>显示这一阶段（先猜：点击你认为最深的格子）</translation>
    </message>
    <message>
        <source>Recomputing…</source>
        <translation>重新计算中…</translation>
    </message>
</context>
<context>
    <name>JSON</name>
    <message>
        <source>Expecting value</source>
        <translation>这里应是一个值</translation>
    </message>
    <message>
        <source>Expecting property name enclosed in double quotes</source>
        <translation>这里应是用双引号括起的字段名</translation>
    </message>
    <message>
        <source>Expecting &apos;:&apos; delimiter</source>
        <translation>这里应是冒号 “:”</translation>
    </message>
    <message>
        <source>Expecting &apos;,&apos; delimiter</source>
        <translation>这里应是逗号 “,”</translation>
    </message>
    <message>
        <source>Unterminated string starting</source>
        <translation>从这里开始的字符串没有结束</translation>
    </message>
    <message>
        <source>Invalid control character</source>
        <translation>字符串里有无效的控制字符（换行、制表符要写成转义）</translation>
    </message>
    <message>
        <source>Invalid \escape</source>
        <translation>无效的反斜杠 \ 转义</translation>
    </message>
    <message>
        <source>Invalid \uXXXX escape</source>
        <translation>无效的 \uXXXX 转义（\u 后应是四位十六进制数）</translation>
    </message>
    <message>
        <source>Extra data</source>
        <translation>这里多出了数据（JSON 值在此之前已经结束）</translation>
    </message>
    <message>
        <source>Illegal trailing comma before end of object</source>
        <translation>对象的结尾前不能有逗号</translation>
    </message>
    <message>
        <source>Illegal trailing comma before end of array</source>
        <translation>数组的结尾前不能有逗号</translation>
    </message>
</context>
<context>
    <name>Lesson</name>
    <message>
        <source>Reveal {stage}</source>
        <translation>揭晓 {stage}</translation>
    </message>
    <message>
        <source>Set up the chapter&apos;s demo</source>
        <translation>布置本章的示例</translation>
    </message>
    <message>
        <source>Loaded the demo&apos;s numbers (one undo step: Ctrl+Z brings yours back).</source>
        <translation>已载入示例的数值（一步撤销：Ctrl+Z 恢复你原来的）。</translation>
    </message>
    <message>
        <source>Loaded the demo&apos;s numbers, then swapped the K rows (two undo steps: Ctrl+Z twice brings yours back).</source>
        <translation>已载入示例的数值，然后交换了 K 行（两步撤销：按两次 Ctrl+Z 恢复你原来的）。</translation>
    </message>
    <message>
        <source>Start again</source>
        <translation>重新开始</translation>
    </message>
    <message>
        <source>Start the lesson</source>
        <translation>开始课程</translation>
    </message>
    <message>
        <source>Your guess for {stage}: &lt;b&gt;{key}&lt;/b&gt; in the row of &lt;b&gt;{row}&lt;/b&gt;. Press &lt;b&gt;Reveal {stage}&lt;/b&gt; to check.</source>
        <translation>你对 {stage} 的猜测：&lt;b&gt;{row}&lt;/b&gt; 那一行里的 &lt;b&gt;{key}&lt;/b&gt;。按&lt;b&gt;揭晓 {stage}&lt;/b&gt;核对。</translation>
    </message>
    <message>
        <source>Click the cell you expect to be darkest in the row of &lt;b&gt;{row}&lt;/b&gt; in the &lt;b&gt;{panel}&lt;/b&gt; panel, then press &lt;b&gt;Reveal {stage}&lt;/b&gt;.</source>
        <translation>在&lt;b&gt;{panel}&lt;/b&gt;面板中，点击你认为 &lt;b&gt;{row}&lt;/b&gt; 那一行里最深的格子，然后按&lt;b&gt;揭晓 {stage}&lt;/b&gt;。</translation>
    </message>
    <message>
        <source>Which values will the row of &lt;b&gt;{row}&lt;/b&gt; mix? Predict the rows of V with the largest weights in ② — think, then press &lt;b&gt;Reveal ③&lt;/b&gt;.</source>
        <translation>&lt;b&gt;{row}&lt;/b&gt; 那一行会混合哪些值？预测 ② 中权重最大的那些 V 行——想好了再按&lt;b&gt;揭晓 ③&lt;/b&gt;。</translation>
    </message>
    <message>
        <source>All three stages are shown. &lt;b&gt;{start}&lt;/b&gt; hides them again, so you can guess before each reveal.</source>
        <translation>三个阶段都已显示。&lt;b&gt;{start}&lt;/b&gt;会再把它们藏起来，让你在每次揭晓前先猜。</translation>
    </message>
    <message>
        <source>{stage} shown</source>
        <translation>{stage} 已显示</translation>
    </message>
    <message>
        <source>Your guess: {row} → &lt;b&gt;{key}&lt;/b&gt;</source>
        <translation>你的猜测：{row} → &lt;b&gt;{key}&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Hidden. Guess first: click a cell in the {panel} panel.</source>
        <translation>已隐藏。先猜：在{panel}面板中点击一个格子。</translation>
    </message>
    <message>
        <source>Shown. The row of {row} is fully masked: no key to look at.</source>
        <translation>已显示。{row} 那一行整行被掩码：没有可看的键。</translation>
    </message>
    <message>
        <source> each</source>
        <translation>各 </translation>
    </message>
    <message>
        <source>Shown. Darkest in the row of {row}: &lt;b&gt;{keys}&lt;/b&gt; ({value}{each}).</source>
        <translation>已显示。{row} 那一行最深的是：&lt;b&gt;{keys}&lt;/b&gt;({each}{value})。</translation>
    </message>
    <message>
        <source>Judged on the numbers you revealed; they have changed since. Start again to guess anew.</source>
        <translation>这是按揭晓时的数值评判的；之后数值已经变了。重新开始可以再猜一次。</translation>
    </message>
    <message>
        <source>the row of {row} is fully masked: no key to look at, every weight is 0.</source>
        <translation>{row} 那一行整行被掩码：没有可看的键，每个权重都是 0。</translation>
    </message>
    <message>
        <source> — tied with {keys}</source>
        <translation> —— 与 {keys} 并列</translation>
    </message>
    <message>
        <source>right: &lt;b&gt;{key}&lt;/b&gt; ({value}){tie}, in the row of {row}.</source>
        <translation>猜对了：{row} 那一行里的 &lt;b&gt;{key}&lt;/b&gt;({value}){tie}。</translation>
    </message>
    <message>
        <source>masked</source>
        <translation>被掩码</translation>
    </message>
    <message>
        <source>the darkest in the row of {row} are &lt;b&gt;{keys}&lt;/b&gt; ({value}{each}), you picked &lt;b&gt;{key}&lt;/b&gt; ({yours}).</source>
        <translation>{row} 那一行最深的是 &lt;b&gt;{keys}&lt;/b&gt;({each}{value})，你选的是 &lt;b&gt;{key}&lt;/b&gt;({yours})。</translation>
    </message>
    <message>
        <source>the darkest in the row of {row} is &lt;b&gt;{keys}&lt;/b&gt; ({value}{each}), you picked &lt;b&gt;{key}&lt;/b&gt; ({yours}).</source>
        <translation>{row} 那一行最深的是 &lt;b&gt;{keys}&lt;/b&gt;({value}{each})，你选的是 &lt;b&gt;{key}&lt;/b&gt;({yours})。</translation>
    </message>
    <message>
        <source>Hidden. Which rows of V will the row of {row} mix? The ones with the largest weights in ② — think, then reveal.</source>
        <translation>已隐藏。{row} 那一行会混合 V 的哪些行？就是 ② 中权重最大的那些——想好了再揭晓。</translation>
    </message>
    <message>
        <source>Shown. The row of {row} is fully masked: it mixes nothing, its output is 0.</source>
        <translation>已显示。{row} 那一行整行被掩码：什么也不混合，输出为 0。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source> and </source>
        <translation> 和 </translation>
    </message>
    <message>
        <source>; the other {keys} hold {weight}</source>
        <translation>；其余 {n_keys} 个键共占 {weight}</translation>
    </message>
    <message>
        <source> Head {head} of {heads}: its weights mix its slice V[:, {cols}].</source>
        <translation>第 {head} 个头（共 {heads} 个）：它的权重混合它的切片 V[:, {cols}]。</translation>
    </message>
    <message>
        <source>Shown. The row of {row} mixes mostly {said}{rest}.{head}</source>
        <translation>已显示。{row} 那一行主要混合 {said}{rest}。{head}</translation>
    </message>
    <message>
        <source>Shown. The row of {row} mixes {said}{rest}.{head}</source>
        <translation>已显示。{row} 那一行混合 {said}{rest}。{head}</translation>
    </message>
    <message>
        <source>Not the demo&apos;s numbers or settings — Set it up to load them</source>
        <translation>不是示例的数值或设置——按「布置」载入它们</translation>
    </message>
    <message>
        <source>① Scores</source>
        <translation>① 分数</translation>
    </message>
    <message>
        <source>Scores</source>
        <translation>分数</translation>
    </message>
    <message>
        <source>② Weights</source>
        <translation>② 权重</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>③ Output</source>
        <translation>③ 输出</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Hide ① ② ③; guess the darkest cell of ① and ② and which values ③ mixes, before each reveal</source>
        <translation>隐藏 ① ② ③；每次揭晓前，先猜 ① 和 ② 中最深的格子，以及 ③ 混合哪些值</translation>
    </message>
    <message>
        <source>Show all</source>
        <translation>全部显示</translation>
    </message>
    <message>
        <source>&lt;b&gt;先猜再看 — guess first, then look.&lt;/b&gt; Attention = 三次矩阵乘夹一个 softmax: three matrix multiplications around one softmax.</source>
        <translation>&lt;b&gt;先猜再看。&lt;/b&gt;Attention = 三次矩阵乘夹一个 softmax。</translation>
    </message>
    <message>
        <source>Step through ① → ② → ③</source>
        <translation>单步走 ① → ② → ③</translation>
    </message>
    <message>
        <source>Experiments · 实验引导</source>
        <translation>实验引导</translation>
    </message>
    <message>
        <source>The chapter&apos;s four guided experiments, on its demo 「猫 追 红色 激光点」. &lt;i&gt;Set it up&lt;/i&gt; brings its numbers back if you changed them — as one undo step, so Ctrl+Z returns yours.</source>
        <translation>本章的四个引导实验，用的是它的示例「猫 追 红色 激光点」。如果你改过数值，&lt;i&gt;布置&lt;/i&gt;会把示例的数值找回来——算作一步撤销，所以 Ctrl+Z 能还原你的数值。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source> {mark} every row of ② sums to 1 (max deviation {deviation}).</source>
        <translation> {mark} ② 的每一行之和都为 1（最大偏差 {deviation}）。</translation>
    </message>
    <message>
        <source>Stages shown: {shown}.</source>
        <translation>已显示的阶段：{shown}。</translation>
    </message>
    <message>
        <source>These tokens are not the demo&apos;s 「猫 追 红色 激光点」.</source>
        <translation>这些词元不是示例的「猫 追 红色 激光点」。</translation>
    </message>
    <message>
        <source>The numbers appear once ③ is revealed.</source>
        <translation>揭晓 ③ 之后才显示这些数字。</translation>
    </message>
    <message>
        <source>{mark} the row of 激光点 is fully masked</source>
        <translation>{mark} 激光点 这一行被完全掩码</translation>
    </message>
    <message>
        <source>{mark} the largest in its row, tied with {others}</source>
        <translation>{mark} 是这一行里最大的，与 {others} 并列</translation>
    </message>
    <message>
        <source>{mark} the largest in its row</source>
        <translation>{mark} 是这一行里最大的</translation>
    </message>
    <message>
        <source>{mark} the largest are now {names}</source>
        <translation>{mark} 现在最大的是 {names}</translation>
    </message>
    <message>
        <source>{mark} the largest is now {names}</source>
        <translation>{mark} 现在最大的是 {names}</translation>
    </message>
    <message>
        <source>激光点 → 红色 &lt;b&gt;{red}&lt;/b&gt;: {verdict}.&lt;br&gt;Row of 激光点: {weights}</source>
        <translation>激光点 → 红色 &lt;b&gt;{red}&lt;/b&gt;：{verdict}。&lt;br&gt;激光点 这一行：{weights}</translation>
    </message>
    <message>
        <source>K as in the demo</source>
        <translation>K 与示例相同</translation>
    </message>
    <message>
        <source>K rows of 猫 and 红色 &lt;b&gt;swapped&lt;/b&gt;</source>
        <translation>K 中 猫 与 红色 两行&lt;b&gt;已交换&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Not the demo&apos;s numbers or settings</source>
        <translation>不是示例的数字或设置</translation>
    </message>
    <message>
        <source> (head {head})</source>
        <translation>（头 {head}）</translation>
    </message>
    <message>
        <source>{k_now}: 追 looks hardest at &lt;b&gt;{hardest}&lt;/b&gt;{head}.&lt;br&gt;Row of 追: {weights}</source>
        <translation>{k_now}：追 最看重 &lt;b&gt;{hardest}&lt;/b&gt;{head}。&lt;br&gt;追 这一行：{weights}</translation>
    </message>
    <message>
        <source>Swap them back</source>
        <translation>换回来</translation>
    </message>
    <message>
        <source>Swap K rows of 猫 and 红色</source>
        <translation>交换 猫 和 红色 的 K 行</translation>
    </message>
    <message>
        <source>head {n} of {heads}: 追 → 猫 &lt;b&gt;{cat}&lt;/b&gt;, 激光点 &lt;b&gt;{dot}&lt;/b&gt;.&lt;br&gt;head {n}: O&lt;sub&gt;{n}&lt;/sub&gt;(追) = {mix} = {output}&lt;br&gt;&lt;span style=&apos;color:#4a5360&apos;&gt;v&lt;sub&gt;{n}&lt;/sub&gt; = head {n}&apos;s slice V[:, {cols}]; its output is O[追, {cols}] (the heads are concatenated).&lt;/span&gt;</source>
        <translation>头 {n}（共 {heads} 个）：追 → 猫 &lt;b&gt;{cat}&lt;/b&gt;，激光点 &lt;b&gt;{dot}&lt;/b&gt;。&lt;br&gt;头 {n}：O&lt;sub&gt;{n}&lt;/sub&gt;(追) = {mix} = {output}&lt;br&gt;&lt;span style=&apos;color:#4a5360&apos;&gt;v&lt;sub&gt;{n}&lt;/sub&gt; = 头 {n} 分到的切片 V[:, {cols}]；它的输出是 O[追, {cols}]（各头拼接起来）。&lt;/span&gt;</translation>
    </message>
    <message>
        <source> in every head ({heads})</source>
        <translation>（全部 {heads} 个头都是）</translation>
    </message>
    <message>
        <source>{mark} every row of the weights sums to 1{where} (max deviation {deviation})</source>
        <translation>{mark} 权重的每一行之和都为 1{where}（最大偏差 {deviation}）</translation>
    </message>
    <message>
        <source>&lt;i&gt;Does every row of the weights sum to 1? Shown once ② is revealed — guess first.&lt;/i&gt;</source>
        <translation>&lt;i&gt;权重的每一行之和都为 1 吗？揭晓 ② 之后显示 —— 先猜一猜。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>its head&apos;s slice of V</source>
        <translation>它所在头的 V 切片</translation>
    </message>
    <message>
        <source>V&apos;s rows</source>
        <translation>V 的各行</translation>
    </message>
    <message>
        <source>, {checked} of {rows} sampled</source>
        <translation>，抽查了 {checked} 行（共 {n_rows} 行）</translation>
    </message>
    <message>
        <source>{mark} every output row lies in the convex hull of {of_v} (worst distance {distance}{sample})</source>
        <translation>{mark} 每个输出行都落在 {of_v} 的凸包内（最大距离 {distance}{sample}）</translation>
    </message>
    <message>
        <source>&lt;i&gt;Does every output row stay inside the convex hull of V? Shown once ③ is revealed.&lt;/i&gt;</source>
        <translation>&lt;i&gt;每个输出行都留在 V 的凸包内吗？揭晓 ③ 之后显示。&lt;/i&gt;</translation>
    </message>
    <message>
        <source> and {more} more</source>
        <translation> 等另外 {more} 个</translation>
    </message>
    <message>
        <source>Left out: {names}{more} — fully masked, no key to attend to (weights 0, output 0).</source>
        <translation>未检查：{names}{more} —— 被完全掩码，没有可关注的键（权重为 0，输出为 0）。</translation>
    </message>
    <message>
        <source>No row is fully masked: every row is checked.</source>
        <translation>没有被完全掩码的行：每一行都检查了。</translation>
    </message>
    <message>
        <source>Live checks</source>
        <translation>实时检查</translation>
    </message>
    <message>
        <source>Per output row i: every weight ≥ 0 and the row sums to 1 (a convex recipe, up to rounding), and O_i is within the shown distance of the point p_i = w⁺_i·V made with the recipe clipped at 0 and renormalised — p_i is a convex combination of V&apos;s rows, so it lies in their hull.</source>
        <translation>对每个输出行 i：每个权重 ≥ 0 且该行和为 1（在舍入误差内是一份凸配方），并且 O_i 与点 p_i = w⁺_i·V 的距离不超过所示值——p_i 用截掉负数并重新归一化的配方算出，是 V 各行的凸组合，所以落在它们的凸包里。</translation>
    </message>
    <message>
        <source>Row to guess in:</source>
        <translation>在哪一行里猜:</translation>
    </message>
    <message>
        <source>Set it up</source>
        <translation>布置</translation>
    </message>
    <message>
        <source> (the K rows of 猫 and 红色 are swapped: experiment ④)</source>
        <translation>（猫 和 红色 的 K 行已交换：实验 ④）</translation>
    </message>
</context>
<context>
    <name>Lines</name>
    <message>
        <source>weights hidden until ② is revealed</source>
        <translation>揭晓 ② 之前权重隐藏</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source> (cross-attention: the queries&apos; sequence on the left, the keys&apos; on the right)</source>
        <translation>（交叉注意力：左边是查询的序列，右边是键的序列）</translation>
    </message>
    <message>
        <source>Each line: a query (left) attends to a key (right); darker and thicker = more weight{two}. Head {head} of {heads}.</source>
        <translation>每条线：一个查询（左）关注一个键（右）；越深越粗 = 权重越大{two}。第 {head} 个头，共 {heads} 个。</translation>
    </message>
    <message>
        <source>no weights to show</source>
        <translation>没有可显示的权重</translation>
    </message>
    <message>
        <source>every nonzero weight</source>
        <translation>每个非零权重</translation>
    </message>
    <message>
        <source>the {k} largest of each query</source>
        <translation>每个查询最大的 {k} 个</translation>
    </message>
    <message>
        <source> above {weight}</source>
        <translation>（大于 {weight}）</translation>
    </message>
    <message>
        <source>{what}: {lines}</source>
        <translation>{what}：{n_lines} 条线</translation>
    </message>
    <message>
        <source> — only the {most} strongest drawn</source>
        <translation> —— 只画最强的 {most} 条</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Draw only the k largest weights of each query row (all: every nonzero weight)</source>
        <translation>每个查询行只画最大的 k 个权重（全部：每个非零权重）</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>top-k per query</source>
        <translation>每个查询取前 k 个</translation>
    </message>
</context>
<context>
    <name>Matrices</name>
    <message>
        <source>Scores</source>
        <translation>分数 Scores</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重 Weights</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出 Output</translation>
    </message>
</context>
<context>
    <name>MatrixFile</name>
    <message>
        <source>{where}: {message}</source>
        <translation>{where}：{message}</translation>
    </message>
    <message>
        <source>a single number</source>
        <translation>单个数</translation>
    </message>
    <message>
        <source>holds Python objects, which could only be read by unpickling; only plain numbers are loaded</source>
        <translation>存的是 Python 对象，只能用 unpickle 读取；这里只加载纯数字</translation>
    </message>
    <message>
        <source>holds structured records; a matrix holds plain numbers</source>
        <translation>存的是结构化记录；矩阵存的是纯数字</translation>
    </message>
    <message>
        <source>holds {value} ({dtype}); a matrix holds real numbers</source>
        <translation>存的是 {value}（{dtype}）；矩阵存的是实数</translation>
    </message>
    <message>
        <source>is {dims}-D ({shape}); a matrix must be 2-D (or 1-D, read as one row)</source>
        <translation>是 {dims} 维的（{shape}）；矩阵必须是 2 维（或 1 维，读作一行）</translation>
    </message>
    <message>
        <source>is empty ({shape})</source>
        <translation>是空的（{shape}）</translation>
    </message>
    <message>
        <source>is {shape} = {cells} numbers; the most is {max_cells}</source>
        <translation>是 {shape} = {cells} 个数；最多 {max_cells} 个</translation>
    </message>
    <message>
        <source>is a Python pickle, not a NumPy .npy file; pickles are never loaded</source>
        <translation>是 Python pickle，不是 NumPy .npy 文件；pickle 一概不加载</translation>
    </message>
    <message>
        <source>is a zip archive, not an .npy file (an .npz renamed?)</source>
        <translation>是 zip 压缩包，不是 .npy 文件（是改了名的 .npz 吗？）</translation>
    </message>
    <message>
        <source>is not a NumPy .npy file (it does not start with the .npy signature)</source>
        <translation>不是 NumPy .npy 文件（开头没有 .npy 签名）</translation>
    </message>
    <message>
        <source>uses .npy format version {major}.{minor}; versions 1.0 and 2.0 are read</source>
        <translation>使用 .npy 格式版本 {major}.{minor}；只能读取 1.0 和 2.0 版</translation>
    </message>
    <message>
        <source>has a damaged .npy header ({detail})</source>
        <translation>.npy 文件头已损坏（{detail}）</translation>
    </message>
    <message>
        <source>its header announces {shape} {dtype} ({need} bytes)</source>
        <translation>文件头声明了 {shape} 的 {dtype}（{need} 字节）</translation>
    </message>
    <message>
        <source>is truncated: {what} but only {left} bytes follow</source>
        <translation>不完整：{what}，但后面只有 {left} 字节</translation>
    </message>
    <message>
        <source>is truncated: {what} but only {got} bytes follow</source>
        <translation>不完整：{what}，但后面只有 {got} 字节</translation>
    </message>
    <message>
        <source>is not a valid .npz file (no zip directory found)</source>
        <translation>不是有效的 .npz 文件（找不到 zip 目录）</translation>
    </message>
    <message>
        <source>is not a valid .npz file (damaged zip64 directory)</source>
        <translation>不是有效的 .npz 文件（zip64 目录已损坏）</translation>
    </message>
    <message>
        <source>is not a valid .npz file (damaged zip directory)</source>
        <translation>不是有效的 .npz 文件（zip 目录已损坏）</translation>
    </message>
    <message>
        <source>is a damaged or unsupported .npz file ({detail})</source>
        <translation>是已损坏或不支持的 .npz 文件（{detail}）</translation>
    </message>
    <message>
        <source>is an archive of {members} members; the most read is {_max_npz_members}</source>
        <translation>是含 {members} 个成员的压缩包；最多读取 {_max_npz_members} 个</translation>
    </message>
    <message>
        <source>it holds {listing}</source>
        <translation>它包含 {listing}</translation>
    </message>
    <message>
        <source>it holds no arrays</source>
        <translation>它不含任何数组</translation>
    </message>
    <message>
        <source>has no array named {member} ({held})</source>
        <translation>没有名为 {member} 的数组（{held}）</translation>
    </message>
    <message>
        <source>holds no arrays</source>
        <translation>不含任何数组</translation>
    </message>
    <message>
        <source>holds {arrays} arrays ({listing}); choose one with member=</source>
        <translation>含 {arrays} 个数组（{listing}）；请用 member= 选一个</translation>
    </message>
    <message>
        <source>is encrypted</source>
        <translation>已加密</translation>
    </message>
    <message>
        <source>is UTF-16 text; save it as UTF-8 (or plain ASCII)</source>
        <translation>是 UTF-16 文本；请存成 UTF-8（或纯 ASCII）</translation>
    </message>
    <message>
        <source>line {lineno} is not UTF-8 text (byte 0x{raw} at offset {offset} cannot be decoded)</source>
        <translation>第 {lineno} 行不是 UTF-8 文本（偏移 {offset} 处的字节 0x{raw} 无法解码）</translation>
    </message>
    <message>
        <source>line {lineno} has {n}; the most is {max_cells}</source>
        <translation>第 {lineno} 行有 {n_n} 个值；最多 {max_cells} 个</translation>
    </message>
    <message>
        <source>is empty</source>
        <translation>是空的</translation>
    </message>
    <message>
        <source>is {text}, not a number</source>
        <translation>是 {text}，不是数字</translation>
    </message>
    <message>
        <source>line {lineno} (row {rows}, col {j}) {what}</source>
        <translation>第 {lineno} 行（矩阵第 {rows} 行、第 {j} 列）{what}</translation>
    </message>
    <message>
        <source>line {lineno} (row {rows}) has {fields} but line {first_line} (row 0) has {width}</source>
        <translation>第 {lineno} 行（矩阵第 {rows} 行）有 {n_fields} 个值，但第 {first_line} 行（矩阵第 0 行）有 {width} 个</translation>
    </message>
    <message>
        <source>holds more than {max_cells} numbers</source>
        <translation>含有超过 {max_cells} 个数</translation>
    </message>
    <message>
        <source>holds no numbers</source>
        <translation>不含任何数字</translation>
    </message>
    <message>
        <source>the value at {place} is {value}; values must lie within ±{max_abs}</source>
        <translation>{place} 处的值是 {value}；值必须在 ±{max_abs} 之内</translation>
    </message>
    <message>
        <source>the value at {place} is too large for a 64-bit float</source>
        <translation>{place} 处的值太大，64 位浮点数放不下</translation>
    </message>
    <message>
        <source>the value at {place} is {value}; values must be finite</source>
        <translation>{place} 处的值是 {value}；值必须是有限数</translation>
    </message>
    <message>
        <source>is not a usable file path ({why})</source>
        <translation>不是可用的文件路径（{why}）</translation>
    </message>
    <message>
        <source>is not a matrix file this app reads (use {matrix_load_suffixes})</source>
        <translation>不是本程序能读取的矩阵文件（请用 {matrix_load_suffixes}）</translation>
    </message>
    <message>
        <source>member= only applies to .npz files</source>
        <translation>member= 只适用于 .npz 文件</translation>
    </message>
    <message>
        <source>no such file</source>
        <translation>没有这个文件</translation>
    </message>
    <message>
        <source>cannot be opened ({value})</source>
        <translation>无法打开（{value}）</translation>
    </message>
    <message>
        <source>is a folder, not a matrix file</source>
        <translation>是文件夹，不是矩阵文件</translation>
    </message>
    <message>
        <source>is not a regular file</source>
        <translation>不是普通文件</translation>
    </message>
    <message>
        <source>is {st_size} MiB; matrix files are limited to {max_bytes} MiB</source>
        <translation>有 {st_size} MiB；矩阵文件最多 {max_bytes} MiB</translation>
    </message>
    <message>
        <source>is larger than {max_bytes} MiB</source>
        <translation>大于 {max_bytes} MiB</translation>
    </message>
    <message>
        <source>cannot be read ({reason})</source>
        <translation>无法读取（{reason}）</translation>
    </message>
    <message>
        <source>is too large to load (out of memory)</source>
        <translation>太大，无法加载（内存不足）</translation>
    </message>
    <message>
        <source>could not be read (nested too deeply)</source>
        <translation>无法读取（嵌套太深）</translation>
    </message>
    <message>
        <source>could not be read ({kind}: {detail})</source>
        <translation>无法读取（{kind}：{detail}）</translation>
    </message>
    <message>
        <source>cannot be written: use {matrix_save_suffixes}</source>
        <translation>无法写入：请用 {matrix_save_suffixes}</translation>
    </message>
    <message>
        <source>cannot be written: not an array of numbers ({why})</source>
        <translation>无法写入：不是数字数组（{why}）</translation>
    </message>
    <message>
        <source>cannot be written: the matrix holds {dtype}, not real numbers</source>
        <translation>无法写入：矩阵存的是 {dtype}，不是实数</translation>
    </message>
    <message>
        <source>cannot be written: the matrix is {shape}; it must be 2-D (or 1-D) and not empty</source>
        <translation>无法写入：矩阵是 {shape}；必须是 2 维（或 1 维）且不为空</translation>
    </message>
    <message>
        <source>cannot be written: {why}</source>
        <translation>无法写入：{why}</translation>
    </message>
    <message>
        <source>could not be saved ({reason})</source>
        <translation>无法保存（{reason}）</translation>
    </message>
</context>
<context>
    <name>MatrixTableView</name>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Paste</source>
        <translation>粘贴</translation>
    </message>
</context>
<context>
    <name>Menu</name>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New (chapter demo)</source>
        <translation>新建（本章示例）(&amp;N)</translation>
    </message>
    <message>
        <source>Start again from the chapter&apos;s demo 猫 追 红色 激光点</source>
        <translation>从本章示例“猫 追 红色 激光点”重新开始</translation>
    </message>
    <message>
        <source>New from &amp;preset</source>
        <translation>从预设新建(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>Open a saved session (.json)</source>
        <translation>打开保存的会话（.json）</translation>
    </message>
    <message>
        <source>Open &amp;model…</source>
        <translation>打开模型(&amp;M)…</translation>
    </message>
    <message>
        <source>See every head of a real model (the tiny one that ships with the explorer, one in your Hugging Face cache, or a folder) and open any head as the session</source>
        <translation>查看真实模型的每个头（随本程序附带的小模型、Hugging Face 缓存里的模型或一个文件夹），并把任一个头作为会话打开</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <source>Save the session</source>
        <translation>保存会话</translation>
    </message>
    <message>
        <source>Save &amp;As…</source>
        <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>Save the session under a new name</source>
        <translation>以新名字保存会话</translation>
    </message>
    <message>
        <source>&amp;Import matrix</source>
        <translation>导入矩阵(&amp;I)</translation>
    </message>
    <message>
        <source>into {name}…</source>
        <translation>导入到 {name}…</translation>
    </message>
    <message>
        <source>Replace {name} with a matrix from a .npy, .npz or .csv file</source>
        <translation>用 .npy、.npz 或 .csv 文件中的矩阵替换 {name}</translation>
    </message>
    <message>
        <source>Q, K and V from one .npz…</source>
        <translation>从一个 .npz 导入 Q、K 和 V…</translation>
    </message>
    <message>
        <source>Replace Q, K and V (and the number of tokens) from an .npz with members Q, K, V</source>
        <translation>用含 Q、K、V 成员的 .npz 替换 Q、K 和 V（以及词元数）</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <source>Window as PNG…</source>
        <translation>窗口为 PNG…</translation>
    </message>
    <message>
        <source>Save a picture of the whole window</source>
        <translation>保存整个窗口的图片</translation>
    </message>
    <message>
        <source>Panel as PNG/SVG</source>
        <translation>面板为 PNG/SVG</translation>
    </message>
    <message>
        <source>Matrix as CSV/NPY</source>
        <translation>矩阵为 CSV/NPY</translation>
    </message>
    <message>
        <source>Session as Python script…</source>
        <translation>会话为 Python 脚本…</translation>
    </message>
    <message>
        <source>Write the session as a NumPy script that recomputes ① S, ② A, ③ O of every head, prints them and saves them: the chapter&apos;s code with your numbers</source>
        <translation>把会话写成 NumPy 脚本，重新计算每个头的 ① S、② A、③ O，打印并保存：本章的代码配上你的数字</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>Leave Attention Explorer</source>
        <translation>离开 Attention Explorer</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>Undone: {step}</source>
        <translation>已撤销：{step}</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>Redone: {step}</source>
        <translation>已重做：{step}</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>Copy the selected cells as tab-separated text</source>
        <translation>把选中的格子复制为制表符分隔的文本</translation>
    </message>
    <message>
        <source>&amp;Paste</source>
        <translation>粘贴(&amp;P)</translation>
    </message>
    <message>
        <source>Paste tab-separated numbers at the cell</source>
        <translation>在当前格子处粘贴制表符分隔的数字</translation>
    </message>
    <message>
        <source>S&amp;huffle tokens</source>
        <translation>打乱词元(&amp;H)</translation>
    </message>
    <message>
        <source>Reorder the tokens and check whether the outputs reorder the same way</source>
        <translation>打乱词元的顺序，检查输出是否按同样的方式重排</translation>
    </message>
    <message>
        <source>Mark as &amp;A for comparison</source>
        <translation>标记为对比的 A(&amp;A)</translation>
    </message>
    <message>
        <source>Keep the state now as A: edit on, and the A/B diff shows B − A for S, A and O</source>
        <translation>把当前状态记为 A：继续编辑，A/B 对比显示 S、A、O 的 B − A</translation>
    </message>
    <message>
        <source>Compare with saved session…</source>
        <translation>与已保存的会话对比…</translation>
    </message>
    <message>
        <source>Take A from a saved session of the same shape (only read)</source>
        <translation>从形状相同的已保存会话取 A（只读）</translation>
    </message>
    <message>
        <source>Clear A</source>
        <translation>清除 A</translation>
    </message>
    <message>
        <source>Forget the state kept as A</source>
        <translation>忘掉记为 A 的状态</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Bring the {title} panel to the front, or hide it when it is in front</source>
        <translation>把“{title}”面板放到最前；已在最前时隐藏它</translation>
    </message>
    <message>
        <source>Reset &amp;layout</source>
        <translation>重置布局(&amp;L)</translation>
    </message>
    <message>
        <source>Put every panel back where it started</source>
        <translation>把每个面板放回初始位置</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Attention Explorer</source>
        <translation>关于 Attention Explorer(&amp;A)</translation>
    </message>
    <message>
        <source>Lan&amp;guage</source>
        <translation>语言 Language(&amp;G)</translation>
    </message>
    <message>
        <source>The {language} translation could not be loaded</source>
        <translation>无法加载{language}翻译</translation>
    </message>
    <message>
        <source>keys</source>
        <translation>键</translation>
    </message>
    <message>
        <source>the same ✓</source>
        <translation>相同 ✓</translation>
    </message>
    <message>
        <source>not the same ✗</source>
        <translation>不同 ✗</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>equivariant ✓</source>
        <translation>等变 ✓</translation>
    </message>
    <message>
        <source>not equivariant ✗</source>
        <translation>不等变 ✗</translation>
    </message>
    <message>
        <source>Shuffled the {moved}: the outputs are {verdict} (max difference {difference})</source>
        <translation>已打乱{moved}：输出{verdict}（最大差 {difference}）</translation>
    </message>
    <message>
        <source>Marked the state now as A: edit on, and the A/B diff shows B − A</source>
        <translation>已把现在的状态标记为 A：继续编辑，A/B 对比会显示 B − A</translation>
    </message>
    <message>
        <source>About Attention Explorer</source>
        <translation>关于 Attention Explorer</translation>
    </message>
    <message>
        <source>Attention is three matrix multiplications (Attention 就是三次矩阵乘):</source>
        <translation>Attention 就是三次矩阵乘：</translation>
    </message>
    <message>
        <source>Edit any number and watch every stage recompute.</source>
        <translation>改动任何一个数，看每一步随之重新计算。</translation>
    </message>
</context>
<context>
    <name>ModelView</name>
    <message>
        <source>before any edit</source>
        <translation>编辑之前</translation>
    </message>
    <message>
        <source>with the edited head</source>
        <translation>用编辑过的头</translation>
    </message>
    <message>
        <source>; “{token}” {before} → {after}</source>
        <translation>；“{token}” {before} → {after}</translation>
    </message>
    <message>
        <source>No layer comes after layer {layer}: the edit changes the output only through the rest of this layer&apos;s block.</source>
        <translation>第 {layer} 层之后没有别的层：这次编辑只通过本层块的其余部分影响输出。</translation>
    </message>
    <message>
        <source>The heads of the later layers attend as before.</source>
        <translation>后面各层的头关注的对象和以前一样。</translation>
    </message>
    <message>
        <source>layer {layer} head {head}</source>
        <translation>第 {layer} 层第 {head} 个头</translation>
    </message>
    <message>
        <source>Later heads that changed most: {names}.</source>
        <translation>后面变化最大的头：{names}。</translation>
    </message>
    <message>
        <source>The session is {head} (from {folder}). Open {name} to see what its edits change in what it says next.</source>
        <translation>这个会话是 {head}（来自 {folder}）。打开 {name}，就能看到这些编辑怎样改变它接下来说的话。</translation>
    </message>
    <message>
        <source>{what} from {folder}</source>
        <translation>来自 {folder} 的 {what}</translation>
    </message>
    <message>
        <source>The session is {where}, which is not the open model now ({other} is): open {name} again to see what its edits change.</source>
        <translation>这个会话是 {where}，但现在打开的不是这个模型（打开的是 {other}）：重新打开 {name} 才能看到这些编辑改变了什么。</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Each number: the share of each row&apos;s attention weight that moved in that head, on average over the rows</source>
        <translation>每个数：该头中每一行注意力权重移动的份额，对各行取平均</translation>
    </message>
    <message>
        <source> The numbers below are from before the last edit.</source>
        <translation>下面的数值来自上次编辑之前。</translation>
    </message>
    <message>
        <source>Running {name} with the edited layer {layer} head {head}…{where}.{before}</source>
        <translation>正在用编辑过的第 {layer} 层第 {head} 个头运行 {name}…{where}。{before}</translation>
    </message>
    <message>
        <source> after “{token}”</source>
        <translation>（在「{token}」之后）</translation>
    </message>
    <message>
        <source>What the model says next{after}</source>
        <translation>模型接下来说什么{after}</translation>
    </message>
    <message>
        <source>Run again</source>
        <translation>再运行一次</translation>
    </message>
    <message>
        <source>Stop the forward pass with the edited head (at its next layer)</source>
        <translation>停止带编辑头的前向计算（在它的下一层）</translation>
    </message>
    <message>
        <source>Run the forward pass with the edited head again</source>
        <translation>用编辑过的头重新做一遍前向计算</translation>
    </message>
    <message>
        <source>Open {title}</source>
        <translation>打开 {title}</translation>
    </message>
    <message>
        <source>Open {folder} in the Model view</source>
        <translation>在模型视图中打开 {folder}</translation>
    </message>
    <message>
        <source>The session is not a head of a real model, so there is no model for its edits to flow back into. Click a head above: then every edit of its numbers runs through the rest of the model, and here you see what it says next change.</source>
        <translation>这个会话不是某个真实模型的头，所以编辑没有模型可以流回。点击上面的一个头：之后对它数值的每次编辑都会流经模型的其余部分，你在这里就能看到模型接下来说的话如何改变。</translation>
    </message>
    <message>
        <source>This session came from {head} at {folder}, which {why}. Its numbers are all here to edit; only what the model says next cannot be shown.</source>
        <translation>这个会话来自 {folder} 中的 {head}，但它{why}。会话的数字都还在，可以编辑；只是无法显示模型接下来会说什么。</translation>
    </message>
    <message>
        <source> Saved like this, the file would not remember the head: it keeps one only while the tokens are the model&apos;s text&apos;s.</source>
        <translation> 照这样保存，文件不会记住这个头：只有词元仍是模型文本的词元时，文件才会记住它。</translation>
    </message>
    <message>
        <source>The session was {head}, but it cannot stand in for that head now: {why}.{unsaved}</source>
        <translation>这个会话原本是 {head}，但现在无法代替那个头：{why}。{unsaved}</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>已停止。</translation>
    </message>
    <message>
        <source>{moved} of the probability moved{favourite}.</source>
        <translation>{moved} 的概率发生了移动{favourite}。</translation>
    </message>
    <message>
        <source>{name} with its layer {layer} head {head} as the session has it now, against the model before any edit</source>
        <translation>{name}：第 {layer} 层第 {head} 个头取会话现在的数字，与未经任何编辑的模型对比</translation>
    </message>
    <message>
        <source>Squares: each head&apos;s weights on the text. &lt;b&gt;prev&lt;/b&gt;: a previous-token head, &lt;b&gt;ind&lt;/b&gt;: an induction head</source>
        <translation>方块：每个头在这段文本上的权重。&lt;b&gt;prev&lt;/b&gt;：前一词元头，&lt;b&gt;ind&lt;/b&gt;：归纳头</translation>
    </message>
    <message>
        <source>Each square is one head&apos;s attention weights on the text (rows: query, columns: key). prev marks a previous-token head, ind an induction head (found on repeated random tokens: the weight on the token after the previous occurrence). Hover a head to read what it mostly does on this text.</source>
        <translation>每个方块是一个头在这段文本上的注意力权重（行：查询，列：键）。prev 标记前一词元头，ind 标记归纳头（在重复的随机词元上找到：权重落在上一次出现之后的那个词元上）。悬停在一个头上，可以读到它在这段文本上主要做什么。</translation>
    </message>
    <message>
        <source>cached token</source>
        <translation>缓存的词元</translation>
    </message>
    <message>
        <source>tiny-induction — ships with the explorer (2 layers × 4 heads)</source>
        <translation>tiny-induction —— 随程序附带（2 层 × 4 个头）</translation>
    </message>
    <message>
        <source>{repo} — {kind}, {layers} layers × {heads} heads</source>
        <translation>{repo} —— {kind}，{layers} 层 × {heads} 个头</translation>
    </message>
    <message>
        <source>Other folder…</source>
        <translation>其他文件夹…</translation>
    </message>
    <message>
        <source>Open a model folder</source>
        <translation>打开模型文件夹</translation>
    </message>
    <message>
        <source>Opened {name}</source>
        <translation>已打开 {name}</translation>
    </message>
    <message>
        <source>Running… {what}</source>
        <translation>运行中… {what}</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source> (lower-case words)</source>
        <translation>（小写单词）</translation>
    </message>
    <message>
        <source>{unknown} of them unknown to this model (&amp;lt;unk&amp;gt;): its vocabulary has {vocab} entries{lower}</source>
        <translation>其中 {unknown} 个是这个模型不认识的(&amp;lt;unk&amp;gt;)：它的词表有 {vocab} 个条目{lower}</translation>
    </message>
    <message>
        <source>{name}: {layers} layers × {heads} heads on {tokens}{warn} — click a head to make it the session</source>
        <translation>{name}：{layers} 层 × {heads} 个头，作用于 {n_tokens} 个词元{warn} —— 点击一个头，把它变成会话</translation>
    </message>
    <message>
        <source> (stopped: the model ended its text)</source>
        <translation>（已停止：模型结束了它的文本）</translation>
    </message>
    <message>
        <source> — K/V cache: 2 (K and V) · {layers} layers · {kv_heads} K/V heads · d_h {d_h} = {per_token} numbers per token ({token_bytes} in float16), {cache_bytes} for its {tokens} tokens</source>
        <translation> —— K/V 缓存：2（K 和 V）· {layers} 层 · {kv_heads} 个 K/V 头 · d_h {d_h} = 每个词元 {per_token} 个数（float16 下 {token_bytes}），{tokens} 个词元共 {cache_bytes}</translation>
    </message>
    <message>
        <source>Generated by {name} as trained: the session&apos;s edits of layer {layer} head {head} show in what the model says next, not here</source>
        <translation>由训练好的 {name} 生成：会话对第 {layer} 层第 {head} 个头的编辑体现在「模型接下来说什么」里，不在这里</translation>
    </message>
    <message>
        <source>. The outlined head is the session, shown as trained: its edits&apos; effect is under “What the model says next”</source>
        <translation>。加框的头就是会话，这里按训练好的样子显示：它的编辑效果在「模型接下来说什么」下面</translation>
    </message>
    <message>
        <source>&lt;b&gt;layer {layer}, head {head}&lt;/b&gt;: on this text its weight goes to {where}{role}. Click to open it as the session.</source>
        <translation>&lt;b&gt;第 {layer} 层，第 {head} 个头&lt;/b&gt;：在这段文本上，它的权重落在 {where}{role}。点击把它作为会话打开。</translation>
    </message>
    <message>
        <source>Cannot open layer {layer} head {head}: {why}</source>
        <translation>无法打开第 {layer} 层第 {head} 个头：{why}</translation>
    </message>
    <message>
        <source>The tiny model that ships with the explorer, the models in your Hugging Face cache (nothing is downloaded), or any folder with config.json, *.safetensors and tokenizer.json</source>
        <translation>随本程序附带的小模型、你的 Hugging Face 缓存里的模型（不会下载任何东西），或任何包含 config.json、*.safetensors 和 tokenizer.json 的文件夹</translation>
    </message>
    <message>
        <source>Text to run through the model; every head&apos;s attention follows as you type</source>
        <translation>送进模型的文本；你一边打字，每个头的注意力一边跟着变</translation>
    </message>
    <message>
        <source>Stop the forward pass in flight (at its next layer)</source>
        <translation>停止正在进行的前向计算（在它的下一层）</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 个词元</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Greedy: the likeliest next token, again and again, with a K/V cache in every layer (each new token&apos;s query reads every earlier token&apos;s cached k and v)</source>
        <translation>贪心：一次又一次取最可能的下一个词元，每层都有 K/V 缓存（每个新词元的查询读取之前所有词元缓存的 k 和 v）</translation>
    </message>
    <message>
        <source>layer · head</source>
        <translation>层 · 头</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>no longer matches it: {why}</source>
        <translation>已与它不再相符：{why}</translation>
    </message>
    <message>
        <source>cannot be opened: the folder is not there any more</source>
        <translation>无法打开：文件夹已经不在了</translation>
    </message>
    <message>
        <source>cannot be opened: {why}</source>
        <translation>无法打开：{why}</translation>
    </message>
    <message>
        <source>layer {layer} head {head} of {name}</source>
        <translation>{name} 的第 {layer} 层第 {head} 个头</translation>
    </message>
    <message>
        <source>{where}: {reason}</source>
        <translation>{where}：{reason}</translation>
    </message>
    <message>
        <source>No model is open</source>
        <translation>没有打开的模型</translation>
    </message>
</context>
<context>
    <name>Numbers</name>
    <message>
        <source>{text} is not above {low}</source>
        <translation>{text} 不大于 {low}</translation>
    </message>
    <message>
        <source>{text} is outside {low} … {high}</source>
        <translation>{text} 超出了 {low} … {high} 的范围</translation>
    </message>
    <message>
        <source>{text} is not a whole number</source>
        <translation>{text} 不是整数</translation>
    </message>
    <message>
        <source>empty text is not a number</source>
        <translation>空白不是数字</translation>
    </message>
    <message>
        <source>{text} is not a number (NaN is not allowed)</source>
        <translation>{text} 不是数字（不允许 NaN）</translation>
    </message>
    <message>
        <source>{text} is infinite; type a finite number</source>
        <translation>{text} 是无穷大；请输入有限的数</translation>
    </message>
    <message>
        <source>{text} is not a number (a comma is read as the decimal point only when it is the only separator)</source>
        <translation>{text} 不是数字（只有逗号是唯一的分隔符时，才把它当作小数点）</translation>
    </message>
    <message>
        <source>{text} is not a number</source>
        <translation>{text} 不是数字</translation>
    </message>
    <message>
        <source>{text} overflows: it is too large to represent</source>
        <translation>{text} 溢出：太大，无法表示</translation>
    </message>
    <message>
        <source>{text} is larger than 1e6 in magnitude</source>
        <translation>{text} 的绝对值大于 1e6</translation>
    </message>
    <message>
        <source>NaN is not allowed</source>
        <translation>不允许 NaN</translation>
    </message>
    <message>
        <source>{n} byte</source>
        <translation>{n} 字节</translation>
    </message>
    <message>
        <source>{n} bytes</source>
        <translation>{n} 字节</translation>
    </message>
</context>
<context>
    <name>PlotItem</name>
    <message>
        <source>Transforms</source>
        <translation>变换</translation>
    </message>
    <message>
        <source>Downsample</source>
        <translation>降采样</translation>
    </message>
    <message>
        <source>Average</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>Alpha</source>
        <translation>透明度</translation>
    </message>
    <message>
        <source>Grid</source>
        <translation>网格</translation>
    </message>
    <message>
        <source>Points</source>
        <translation>点</translation>
    </message>
    <message>
        <source>Plot Options</source>
        <translation>绘图选项</translation>
    </message>
</context>
<context>
    <name>Positions</name>
    <message>
        <source>&lt;b&gt;Sinusoidal positions&lt;/b&gt; PE[p, 2i] = sin(p / 10000&lt;sup&gt;2i/D&lt;/sup&gt;), PE[p, 2i+1] = cos(p / 10000&lt;sup&gt;2i/D&lt;/sup&gt;) — one vector of sines and cosines per position</source>
        <translation>&lt;b&gt;正弦位置编码&lt;/b&gt; PE[p, 2i] = sin(p / 10000&lt;sup&gt;2i/D&lt;/sup&gt;)，PE[p, 2i+1] = cos(p / 10000&lt;sup&gt;2i/D&lt;/sup&gt;) —— 每个位置一条由正弦和余弦组成的向量</translation>
    </message>
    <message>
        <source>Shuffle the tokens to test permutation equivariance: without positions, attention cannot tell the order of its inputs (「猫追狗」和「狗追猫」在它眼里是同一袋词).</source>
        <translation>打乱词元，检验置换等变性：没有位置信息时，注意力分不清输入的顺序（「猫追狗」和「狗追猫」在它眼里是同一袋词）。</translation>
    </message>
    <message>
        <source>Sinusoidal positions are added to the token vectors X, and this session edits Q, K, V directly. Switch to projected mode to see and use them — or use ALiBi, which needs no X.</source>
        <translation>正弦位置编码加在词元向量 X 上，而这个会话直接编辑 Q、K、V。切换到投影模式才能看到并使用它们——或者改用不需要 X 的 ALiBi。</translation>
    </message>
    <message>
        <source>&lt;b&gt;ALiBi&lt;/b&gt; (Press et al.): no position vectors; head h adds −m&lt;sub&gt;h&lt;/sub&gt;·|i − j| to its scores, so a key costs more the further it is. Slopes m&lt;sub&gt;h&lt;/sub&gt; = 2&lt;sup&gt;−8h/H&lt;/sup&gt;.</source>
        <translation>&lt;b&gt;ALiBi&lt;/b&gt;（Press 等）：没有位置向量；头 h 给它的分数加上 −m&lt;sub&gt;h&lt;/sub&gt;·|i − j|，键离得越远代价越大。斜率 m&lt;sub&gt;h&lt;/sub&gt; = 2&lt;sup&gt;−8h/H&lt;/sup&gt;。</translation>
    </message>
    <message>
        <source> In cross-attention i and j count positions in two different sequences: an experiment — encoder–decoder models do not put ALiBi on cross-attention.</source>
        <translation>在交叉注意力里，i 和 j 数的是两个不同序列中的位置：这只是个实验——编码器–解码器模型不在交叉注意力上用 ALiBi。</translation>
    </message>
    <message>
        <source>add positions to X (before the projections)</source>
        <translation>把位置加到 X 上（在投影之前）</translation>
    </message>
    <message>
        <source>add positions to X</source>
        <translation>把位置加到 X</translation>
    </message>
    <message>
        <source>ALiBi: a linear bias per head on the scores</source>
        <translation>ALiBi：每个头在分数上加一个线性偏置</translation>
    </message>
    <message>
        <source>query token i</source>
        <translation>查询词元 i</translation>
    </message>
    <message>
        <source>key token j</source>
        <translation>键词元 j</translation>
    </message>
    <message>
        <source>position</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>dimension of X</source>
        <translation>X 的维度</translation>
    </message>
    <message>
        <source>bias</source>
        <translation>偏置</translation>
    </message>
    <message>
        <source>head h</source>
        <translation>头 h</translation>
    </message>
    <message>
        <source>slope m_h</source>
        <translation>斜率 m_h</translation>
    </message>
    <message>
        <source>This head comes from {name}, which learns a position vector per place (wpe) and adds it to each token&apos;s embedding: X already carries the order, so “none” here adds nothing more — order is not invisible to this head.</source>
        <translation>这个头来自 {name}，它为每个位置学一条位置向量(wpe)并加到每个词元的嵌入上：X 已经带着顺序，所以这里选「无」也不会再加什么——对这个头来说，顺序并非不可见。</translation>
    </message>
    <message>
        <source>head {head}: m = {slope}</source>
        <translation>头 {head}：m = {slope}</translation>
    </message>
    <message>
        <source>positions</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>the causal mask</source>
        <translation>因果掩码</translation>
    </message>
    <message>
        <source> and </source>
        <translation>和</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#b00020&apos;&gt;✗ not the same output&lt;/span&gt; (max difference {difference}): the keys moved with their values, but their positions count here ({why}), so each query weighs them differently.</source>
        <translation>&lt;span style=&apos;color:#b00020&apos;&gt;✗ 输出不同&lt;/span&gt;（最大差 {difference}）：键随它们的值一起移动了，但这里位置会起作用({why})，所以每个查询给它们的权重不同了。</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#1a7f37&apos;&gt;✓ the same output&lt;/span&gt; (max difference {difference}): the keys moved with their values, so only the weights&apos; columns moved — each query still finds the same keys, wherever they stand.</source>
        <translation>&lt;span style=&apos;color:#1a7f37&apos;&gt;✓ 输出相同&lt;/span&gt;（最大差 {difference}）：键随它们的值一起移动，所以只有权重的列动了——无论键站在哪里，每个查询找到的仍是同样的键。</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#1a7f37&apos;&gt;✓ equivariant&lt;/span&gt;: the new output is the old output permuted the same way (max difference {difference}). Without positions, order is invisible to attention.</source>
        <translation>&lt;span style=&apos;color:#1a7f37&apos;&gt;✓ 等变&lt;/span&gt;：新输出就是按同样方式置换后的旧输出（最大差 {difference}）。没有位置信息，顺序对注意力是不可见的。</translation>
    </message>
    <message>
        <source>something that depends on position</source>
        <translation>某种依赖位置的东西</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#b00020&apos;&gt;✗ not equivariant&lt;/span&gt;: the new output differs from the old one permuted (max difference {difference}) — {cause} tie each output to its place.</source>
        <translation>&lt;span style=&apos;color:#b00020&apos;&gt;✗ 不等变&lt;/span&gt;：新输出与置换后的旧输出不同（最大差 {difference}）——{cause}把每个输出绑在了它的位置上。</translation>
    </message>
    <message>
        <source>X + PE is what W_q, W_k and W_v project when this is on</source>
        <translation>勾选后，W_q、W_k、W_v 投影的是 X + PE</translation>
    </message>
    <message>
        <source>Head h adds −m_h·|i − j| to score (i, j) after the scale, before the temperature</source>
        <translation>头 h 在缩放之后、温度之前，给分数 (i, j) 加上 −m_h·|i − j|</translation>
    </message>
    <message>
        <source>Switch to projected mode</source>
        <translation>切换到投影模式</translation>
    </message>
    <message>
        <source>Q = X·W_qᵀ, K = X·W_kᵀ, V = X·W_vᵀ, starting from X and W that reproduce the current Q, K, V exactly</source>
        <translation>Q = X·W_qᵀ，K = X·W_kᵀ，V = X·W_vᵀ，起点是恰好重现当前 Q、K、V 的 X 和 W</translation>
    </message>
    <message>
        <source>seed </source>
        <translation>种子 </translation>
    </message>
    <message>
        <source>Which permutation: the same seed shuffles the same way</source>
        <translation>用哪种置换：同一个种子打乱的方式相同</translation>
    </message>
    <message>
        <source>Shuffle tokens</source>
        <translation>打乱词元</translation>
    </message>
    <message>
        <source>Reorder the tokens (rows of X, or of Q, K, V) and compare the new output with the old output reordered the same way</source>
        <translation>重排词元（X 的行，或 Q、K、V 的行），把新输出和按同样方式重排的旧输出比较</translation>
    </message>
    <message>
        <source>the keys</source>
        <translation>键</translation>
    </message>
    <message>
        <source>the queries</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>Cross-attention: shuffle the keys&apos; sequence (the weights&apos; columns move, the outputs stay) or the queries&apos; (the output rows move with them)</source>
        <translation>交叉注意力：打乱键的序列（权重的列跟着动，输出不变），或查询的序列（输出的行跟着动）</translation>
    </message>
</context>
<context>
    <name>Presets</name>
    <message>
        <source>Chapter demo: 猫 追 红色 激光点</source>
        <translation>本章示例：猫 追 红色 激光点</translation>
    </message>
    <message>
        <source>Uniform: all-zero queries</source>
        <translation>均匀：全零的查询</translation>
    </message>
    <message>
        <source>Previous-token head (causal)</source>
        <translation>前一个词元头（因果）</translation>
    </message>
    <message>
        <source>Random L=6, d=4 (seed 0)</source>
        <translation>随机 L=6, d=4（种子 0）</translation>
    </message>
    <message>
        <source>Two heads, projected: previous token + content (D = 8)</source>
        <translation>两个头，投影：前一个词元 + 内容（D = 8）</translation>
    </message>
    <message>
        <source>Cross-attention: queries “The cat chases the red laser dot”, keys “猫 追 红色 激光点”</source>
        <translation>交叉注意力：查询“The cat chases the red laser dot”，键“猫 追 红色 激光点”</translation>
    </message>
    <message>
        <source>Grouped K/V heads: 8 query heads share 2 K/V heads (GQA)</source>
        <translation>分组 K/V 头：8 个查询头共享 2 个 K/V 头（GQA）</translation>
    </message>
</context>
<context>
    <name>QKSpace</name>
    <message>
        <source>the strongest keys stay hidden until ② is revealed</source>
        <translation>揭晓 ② 之前，最强的键保持隐藏</translation>
    </message>
    <message>
        <source>plane axis 1</source>
        <translation>平面轴 1</translation>
    </message>
    <message>
        <source>axis 2</source>
        <translation>轴 2</translation>
    </message>
    <message>
        <source> Head {head} of {heads}.</source>
        <translation>第 {head} 个头，共 {heads} 个。</translation>
    </message>
    <message>
        <source> Its keys are K/V head {kv}, shared by query heads {first}–{last}.</source>
        <translation>它的键来自 K/V 头 {kv}，由查询头 {first}–{last} 共享。</translation>
    </message>
    <message>
        <source> (cross-attention: the queries come from one sequence, the keys from the other)</source>
        <translation>（交叉注意力：查询来自一个序列，键来自另一个）</translation>
    </message>
    <message>
        <source>{query}: what a token looks for (我在找什么) · {key}: what it can be found by (我能被什么找到){cross}. A query lands near the keys it weighs most.{which}</source>
        <translation>{query}：我在找什么 · {key}：我能被什么找到{cross}。查询落在它最看重的那些键附近。{which}</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>this session</source>
        <translation>这个会话</translation>
    </message>
    <message>
        <source>many sentences</source>
        <translation>多个句子</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>{query} (我在找什么) · {key} (我能被什么找到) of the session&apos;s real head over many sentences, each run through the model on its own.</source>
        <translation>会话中这个真实模型头在多个句子上的{query}（我在找什么）与{key}（我能被什么找到），每个句子各自单独通过模型。</translation>
    </message>
    <message>
        <source>Cannot place this head&apos;s queries and keys: {why}</source>
        <translation>无法摆放这个头的查询和键：{why}</translation>
    </message>
    <message>
        <source>The plane keeps {kept} of the variance of the {points} — a projection (PCA, {d} → 2 dimensions). Queries ×{s}, keys ÷{s} and moved onto the queries&apos; centre: no weight changes.</source>
        <translation>这个平面保留了 {n_points} 个点 {kept} 的方差——这是一个投影（PCA，{d} → 2 维）。查询 ×{s}，键 ÷{s} 并移到查询的中心：权重一个都不变。</translation>
    </message>
    <message>
        <source>Its axes are the two directions in which queries and keys together vary most; points apart in {d} dimensions may land close on it. Multiplying every q by s and dividing every k by s leaves each q·k; adding one vector c to every key adds q·c to a whole row of scores, which softmax ignores. So the weights (②) are those of the head, while the two clouds share one centre (their mean lengths were made equal before the keys moved onto it; AttentionViz, Yeh et al. 2023).</source>
        <translation>它的两根轴是查询和键合在一起变化最大的两个方向；在 {d} 维里相距很远的点，在这里可能挨得很近。每个 q 乘 s、每个 k 除以 s，q·k 不变；给每个键加同一个向量 c，相当于给整行分数加上 q·c，softmax 对此不敏感。所以权重(②)仍是这个头的权重，而两团点共享一个中心（键移过去之前，先让两者的平均长度相等；AttentionViz，Yeh 等 2023）。</translation>
    </message>
    <message>
        <source>recomputing…</source>
        <translation>重新计算中…</translation>
    </message>
    <message>
        <source>query {name}: fully masked — no key to attend to</source>
        <translation>查询 {name}：整行被掩码——没有可关注的键</translation>
    </message>
    <message>
        <source>key {name}: no query may attend to it</source>
        <translation>键 {name}：没有查询可以关注它</translation>
    </message>
    <message>
        <source>query {name} looks for → {listed}</source>
        <translation>查询 {name} 在找 → {listed}</translation>
    </message>
    <message>
        <source>key {name} is found by ← {listed}</source>
        <translation>键 {name} 被这些找到 ← {listed}</translation>
    </message>
    <message>
        <source>Running the sentences through the model…</source>
        <translation>正在让这些句子通过模型…</translation>
    </message>
    <message>
        <source>Press Place to run the sentences through the model</source>
        <translation>按“放置”让这些句子通过模型</translation>
    </message>
    <message>
        <source>hover a point: its sentence, token and position</source>
        <translation>鼠标停在一个点上：看它的句子、词元和位置</translation>
    </message>
    <message>
        <source>How many of the strongest keys (or queries) to join to the point in focus</source>
        <translation>把多少个最强的键（或查询）连到焦点上</translation>
    </message>
    <message>
        <source>Hover a query for its strongest keys, a key for the queries that weigh it most; click a query to select its row</source>
        <translation>悬停在查询上看它最强的键，悬停在键上看最看重它的查询；点击查询可选中它那一行</translation>
    </message>
    <message>
        <source>The session&apos;s tokens, or — for a head of a real model — many sentences at once, each run through the model (AttentionViz&apos;s corpus view)</source>
        <translation>会话的词元；或者——对真实模型的头——一次多个句子，每句各自通过模型（AttentionViz 的语料视图）</translation>
    </message>
    <message>
        <source>top-k</source>
        <translation>前 k 个</translation>
    </message>
    <message>
        <source>{side} {name} — sentence {sentence}, position {position} (“{text}”)</source>
        <translation>{side} {name}——第 {sentence} 句，位置 {position}（“{text}”）</translation>
    </message>
    <message>
        <source>{where} looks for → {listed}</source>
        <translation>{where} 在找 → {listed}</translation>
    </message>
    <message>
        <source>{where} is found by ← {listed}</source>
        <translation>{where} 被这些找到 ← {listed}</translation>
    </message>
    <message>
        <source>Layer {layer} head {head} of {model}, as trained, on {sentences}: {points}, the plane keeps {kept} of their variance. Hover a point for its sentence and its strongest partners there.</source>
        <translation>{model} 的第 {layer} 层第 {head} 个头（训练所得，未改动），{n_sentences} 个句子：{n_points} 个点，这个平面保留了它们 {kept} 的方差。鼠标停在一个点上，看它的句子和它在句中最强的搭档。</translation>
    </message>
    <message>
        <source>AttentionViz&apos;s view of a head (Yeh et al. 2023): every sentence runs through the model on its own; the head&apos;s queries and keys of all of them are scaled (one s) and the keys moved (one c) as for one sentence, which leaves every weight in every sentence as it is, then projected together (PCA). A query only ever weighs keys of its own sentence; the lines join it to those. Edits of the session do not enter: the model runs as trained.</source>
        <translation>AttentionViz 看一个头的方式（Yeh 等 2023）：每个句子各自通过模型；所有句子中这个头的查询和键像一句那样统一缩放（同一个 s）、统一平移键（同一个 c）——每句中的每个权重都不变——再一起投影（PCA）。查询只会看重自己句子里的键，连线就连到这些键。会话的编辑不参与：模型按训练所得运行。</translation>
    </message>
    <message>
        <source>Each point&apos;s colour is its token&apos;s position in its sentence (0 is the first token)</source>
        <translation>每个点的颜色是它的词元在句中的位置（0 是第一个词元）</translation>
    </message>
    <message>
        <source>position 0</source>
        <translation>位置 0</translation>
    </message>
    <message>
        <source>One sentence per line</source>
        <translation>每行一个句子</translation>
    </message>
    <message>
        <source>One sentence per line (blank lines are skipped); each runs through the model on its own, and the head&apos;s queries and keys of all of them share one plane</source>
        <translation>每行一个句子（跳过空行）；每句各自通过模型，所有句子中这个头的查询和键共用一个平面</translation>
    </message>
    <message>
        <source>Place</source>
        <translation>放置</translation>
    </message>
    <message>
        <source>Run every sentence through the model and place the head&apos;s queries and keys</source>
        <translation>让每个句子通过模型，并放置这个头的查询和键</translation>
    </message>
    <message>
        <source>Load .txt…</source>
        <translation>载入 .txt…</translation>
    </message>
    <message>
        <source>Sentences from a UTF-8 text file, one per line</source>
        <translation>从 UTF-8 文本文件读句子，每行一句</translation>
    </message>
    <message>
        <source>colour: position</source>
        <translation>颜色：位置</translation>
    </message>
    <message>
        <source>colour: query / key</source>
        <translation>颜色：查询 / 键</translation>
    </message>
    <message>
        <source>Colour each point by its token&apos;s position in its sentence, or by query and key</source>
        <translation>按词元在句中的位置给每个点着色，或按查询和键着色</translation>
    </message>
    <message>
        <source>Sentences</source>
        <translation>句子</translation>
    </message>
    <message>
        <source>Show or hide the sentences (hidden once they are placed)</source>
        <translation>显示或隐藏句子（放置后自动隐藏）</translation>
    </message>
    <message>
        <source>Load sentences</source>
        <translation>载入句子</translation>
    </message>
    <message>
        <source>Text files (*.txt);;All files (*)</source>
        <translation>文本文件 (*.txt);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>Readout</name>
    <message>
        <source>share  w·v</source>
        <translation>份额  w·v</translation>
    </message>
    <message>
        <source>output dimension</source>
        <translation>输出维度</translation>
    </message>
    <message>
        <source>the other {others}: their positive shares of {col} make {part}</source>
        <translation>其余 {n_others} 个键：它们在 {col} 上的正份额合计 {part}</translation>
    </message>
    <message>
        <source>the other {others}: their negative shares of {col} make {part}</source>
        <translation>其余 {n_others} 个键：它们在 {col} 上的负份额合计 {part}</translation>
    </message>
    <message>
        <source>O[{q}, {col}] = {output} (the sum of the shares)</source>
        <translation>O[{q}, {col}] = {output}（各份额之和）</translation>
    </message>
    <message>
        <source>row fully masked: no output (all weights 0)</source>
        <translation>整行被掩码：没有输出（权重全为 0）</translation>
    </message>
    <message>
        <source>… ({more} more, Σw = {rest})</source>
        <translation>…（另外 {more} 项，Σw = {rest}）</translation>
    </message>
    <message>
        <source>&lt;b&gt;③ {name} for {who}&lt;/b&gt; — hidden until ③ is revealed</source>
        <translation>&lt;b&gt;{who} 的 ③ {name}&lt;/b&gt; —— 揭晓 ③ 之前隐藏</translation>
    </message>
    <message>
        <source>&lt;b&gt;③ {name} for {who}&lt;/b&gt;: {masked}</source>
        <translation>&lt;b&gt;{who} 的 ③ {name}&lt;/b&gt;：{masked}</translation>
    </message>
    <message>
        <source>&lt;b&gt;③ {name} for {who}&lt;/b&gt;: O = {terms} — a convex combination of the rows of V (weights ≥ 0, Σ = 1)</source>
        <translation>&lt;b&gt;{who} 的 ③ {name}&lt;/b&gt;：O = {terms} —— V 各行的凸组合（权重 ≥ 0，Σ = 1）</translation>
    </message>
    <message>
        <source>head {head}/{heads} (chosen in Controls) mixes its slice V[:, {cols}] into {noun_en} {cols} of O</source>
        <translation>头 {head}/{heads}（在控制面板中选择）把它的切片 V[:, {cols}] 混合进 O 的 {cols} 列</translation>
    </message>
    <message>
        <source>{rest}&amp;nbsp;others&amp;nbsp;{weight}</source>
        <translation>其余&amp;nbsp;{rest}&amp;nbsp;个&amp;nbsp;{weight}</translation>
    </message>
    <message>
        <source>total</source>
        <translation>合计</translation>
    </message>
    <message>
        <source>{dim} (V has one dimension: a line)</source>
        <translation>{dim}（V 只有一维：一条直线）</translation>
    </message>
    <message>
        <source>row fully masked: no output, so nothing to place in the hull</source>
        <translation>整行被掩码：没有输出，凸包里没有可放的点</translation>
    </message>
    <message>
        <source>{o} inside the hull of V&apos;s rows ({where}): &lt;b&gt;{mark}&lt;/b&gt;</source>
        <translation>{o} 在 V 各行围成的凸包内({where})：&lt;b&gt;{mark}&lt;/b&gt;</translation>
    </message>
    <message>
        <source>The query row to read (or click a row in any heatmap)</source>
        <translation>要读的查询行（或在任一热图中点击一行）</translation>
    </message>
    <message>
        <source>The dimension of V on the plane&apos;s horizontal axis</source>
        <translation>平面横轴上的 V 维度</translation>
    </message>
    <message>
        <source>The dimension of V on the plane&apos;s vertical axis</source>
        <translation>平面纵轴上的 V 维度</translation>
    </message>
    <message>
        <source>plane:</source>
        <translation>平面:</translation>
    </message>
    <message>
        <source>How each output row is mixed stays hidden until ③ is revealed</source>
        <translation>揭晓 ③ 之前，每个输出行如何混合保持隐藏</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
</context>
<context>
    <name>Recovery</name>
    <message>
        <source>Autosave failed: {why}</source>
        <translation>自动保存失败：{why}</translation>
    </message>
    <message>
        <source>not enough memory</source>
        <translation>内存不足</translation>
    </message>
    <message>
        <source>Could not remove the recovery file {path}: {why}</source>
        <translation>无法删除恢复文件 {path}：{why}</translation>
    </message>
    <message>
        <source>Restored the unsaved session from the last run.</source>
        <translation>已恢复上次运行中未保存的会话。</translation>
    </message>
</context>
<context>
    <name>RoPE</name>
    <message>
        <source>In projected mode Q and K are computed from X. Switch to direct mode (Controls → Q, K, V) to use this button, or make every row of X the same by hand: every q and k is then the same vector at every position, and the diagonals are constant too.</source>
        <translation>投影模式下 Q 和 K 由 X 算出。切换到直接编辑模式（控制 → Q、K、V）才能用这个按钮；或者手工把 X 的每一行改成一样：这样每个位置上的 q 和 k 都是同一个向量，对角线同样是常数。</translation>
    </message>
    <message>
        <source>pairs</source>
        <translation>配对</translation>
    </message>
    <message>
        <source>offset</source>
        <translation>偏移</translation>
    </message>
    <message>
        <source>scaling</source>
        <translation>缩放方式</translation>
    </message>
    <message>
        <source>original context</source>
        <translation>原始上下文</translation>
    </message>
    <message>
        <source>Open a RoPE-ready example</source>
        <translation>打开一个可用 RoPE 的示例</translation>
    </message>
    <message>
        <source>Same q ({query}) and k ({key}) at every position, RoPE on</source>
        <translation>每个位置都用同样的 q({query})和 k({key})，打开 RoPE</translation>
    </message>
    <message>
        <source>Rotate q and k of every head by position before the scores (the heatmaps change)</source>
        <translation>在计算分数之前，按位置旋转每个头的 q 和 k（热图会随之改变）</translation>
    </message>
    <message>
        <source>head {number}</source>
        <translation>头 {number}</translation>
    </message>
    <message>
        <source>The rotation plane, the θ spectrum and the score plots need an even d_h too. Add a dimension to Q and K in the matrix editor, or open an example with an even width:</source>
        <translation>旋转平面、θ 频谱和分数图同样需要偶数的 d_h。在矩阵编辑器里给 Q 和 K 加一个维度，或打开一个宽度为偶数的示例:</translation>
    </message>
    <message>
        <source>Set every row of Q to the query&apos;s row and every row of K to the key&apos;s row, and turn RoPE on (one undo step): the scores then depend on i − j only</source>
        <translation>把 Q 的每一行都设成这个查询的行、K 的每一行都设成这个键的行，并打开 RoPE（一步撤销）：于是分数只取决于 i − j</translation>
    </message>
    <message>
        <source>the scores</source>
        <translation>分数</translation>
    </message>
    <message>
        <source> — and equal everywhere: without RoPE the same q and k give the same score at any distance</source>
        <translation> —— 而且处处相等：没有 RoPE 时，同样的 q 和 k 在任何距离上给出的分数都一样</translation>
    </message>
    <message>
        <source>; they change from one diagonal to the next (by up to {spread}): only the distance i − j matters</source>
        <translation>；不同对角线之间会变化（最多变 {spread}）：只有距离 i − j 起作用</translation>
    </message>
    <message>
        <source>&lt;b&gt;Scores constant along each diagonal: max deviation {deviation}&lt;/b&gt; ({head}){extra}.</source>
        <translation>&lt;b&gt;分数沿每条对角线不变：最大偏差 {deviation}&lt;/b&gt;({head}){extra}。</translation>
    </message>
    <message>
        <source>Along a diagonal (i − j fixed) {head} differ by up to {deviation}: q and k change from token to token, so more than the distance moves them.</source>
        <translation>沿一条对角线（i − j 固定），{head}最多相差 {deviation}：q 和 k 随词元而变，所以影响它们的不只是距离。</translation>
    </message>
    <message>
        <source> Press the button to keep only the distance.</source>
        <translation>按下按钮，就只剩距离起作用。</translation>
    </message>
    <message>
        <source>fast-turning pairs see short distances, slow ones long</source>
        <translation>转得快的配对看近距离，转得慢的看远距离</translation>
    </message>
    <message>
        <source>kept: it turns faster than 2π·high_freq_factor / original context</source>
        <translation>保持不变：它比 2π·high_freq_factor / 原始上下文 转得快</translation>
    </message>
    <message>
        <source>blended between θ_i and θ_i / factor: it lies between the two limits</source>
        <translation>在 θ_i 与 θ_i / factor 之间混合：它位于两条界限之间</translation>
    </message>
    <message>
        <source>divided by the factor: it turns slower than 2π·low_freq_factor / original context</source>
        <translation>除以 factor：它比 2π·low_freq_factor / 原始上下文 转得慢</translation>
    </message>
    <message>
        <source>kept above</source>
        <translation>以上保持不变</translation>
    </message>
    <message>
        <source>÷ factor below</source>
        <translation>以下 ÷ factor</translation>
    </message>
    <message>
        <source>first dimension of the pair</source>
        <translation>配对的第一维</translation>
    </message>
    <message>
        <source>second</source>
        <translation>第二维</translation>
    </message>
    <message>
        <source>pair i</source>
        <translation>配对 i</translation>
    </message>
    <message>
        <source>θ_i (rad per position)</source>
        <translation>θ_i（每个位置的弧度）</translation>
    </message>
    <message>
        <source>pair {pair} ({dims}) of head {head}: {q} turned by m·θ, {k} by n·θ</source>
        <translation>头 {head} 的配对 {pair}({dims})：{q} 转 m·θ，{k} 转 n·θ</translation>
    </message>
    <message>
        <source> RoPE is off in the pipeline: the heatmaps do not turn q and k yet.</source>
        <translation>流水线中 RoPE 关闭：热图还没有旋转 q 和 k。</translation>
    </message>
    <message>
        <source>θ&lt;sub&gt;{pair}&lt;/sub&gt; = {theta} rad per position (one turn every {wavelength} positions){scaled}. Angle from {k} to {q}: {angle} = {before}° before rotation + (m − n)·θ&lt;sub&gt;{pair}&lt;/sub&gt; = {offset}·θ&lt;sub&gt;{pair}&lt;/sub&gt; ≡ {turn}° (angles mod 360°).&lt;br&gt;This pair&apos;s score q·k = &lt;b&gt;{pair_score}&lt;/b&gt;; the whole head&apos;s q&lt;sub&gt;{m}&lt;/sub&gt;·k&lt;sub&gt;{n}&lt;/sub&gt; = &lt;b&gt;{score}&lt;/b&gt; (sum over {its_or_all_en} {pairs}). {dashed}</source>
        <translation>θ&lt;sub&gt;{pair}&lt;/sub&gt; = 每个位置 {theta} 弧度（每 {wavelength} 个位置转一圈）{scaled}。从 {k} 到 {q} 的角度：{angle} = 旋转前 {before}° + (m − n)·θ&lt;sub&gt;{pair}&lt;/sub&gt; = {offset}·θ&lt;sub&gt;{pair}&lt;/sub&gt; ≡ {turn}°（角度对 360° 取模）。&lt;br&gt;这个配对的分数 q·k = &lt;b&gt;{pair_score}&lt;/b&gt;；整个头的 q&lt;sub&gt;{m}&lt;/sub&gt;·k&lt;sub&gt;{n}&lt;/sub&gt; = &lt;b&gt;{score}&lt;/b&gt;（对全部 {n_pairs} 个配对求和）。{dashed}</translation>
    </message>
    <message>
        <source>Dashed: before rotation (position 0).</source>
        <translation>虚线：旋转之前（位置 0）。</translation>
    </message>
    <message>
        <source>Distance locked at m − n = {distance}: both arrows turn, but the angle between them ({angle}°) and this pair&apos;s score stay fixed — and so does q&lt;sub&gt;m&lt;/sub&gt;·k&lt;sub&gt;n&lt;/sub&gt;.</source>
        <translation>距离锁定在 m − n = {distance}：两支箭头都在转，但它们之间的角度({angle}°)和这个配对的分数保持不变——q&lt;sub&gt;m&lt;/sub&gt;·k&lt;sub&gt;n&lt;/sub&gt; 也不变。</translation>
    </message>
    <message>
        <source>; llama3 scaling: base&lt;sup&gt;−2i/d_h&lt;/sup&gt; = {plain}, {band}</source>
        <translation>；llama3 缩放：base&lt;sup&gt;−2i/d_h&lt;/sup&gt; = {plain}，{band}</translation>
    </message>
    <message>
        <source>, llama3-scaled: slow pairs ÷ {factor}</source>
        <translation>，llama3 缩放：慢配对 ÷ {factor}</translation>
    </message>
    <message>
        <source>(dashed: before)</source>
        <translation>（虚线：缩放前）</translation>
    </message>
    <message>
        <source>equal offsets give equal scores: q_m·k_n against m − n&lt;br&gt;starting at min(m, n) = {legend}</source>
        <translation>相同的位移给出相同的分数：q_m·k_n 随 m − n 的变化&lt;br&gt;起点 min(m, n) = {legend}</translation>
    </message>
    <message>
        <source>m − n = {offset} lies outside ±{span}</source>
        <translation>m − n = {offset} 超出 ±{span}</translation>
    </message>
    <message>
        <source>The {count} curves lie on top of each other: they differ by at most {gap}. {where}. {note}</source>
        <translation>{count} 条曲线彼此重合：相差至多 {gap}。{where}。{note}</translation>
    </message>
    <message>
        <source>(The score heatmap shows q·k × scale.)</source>
        <translation>（分数热图显示的是 q·k × 缩放。）</translation>
    </message>
    <message>
        <source>RoPE on in the pipeline</source>
        <translation>在流水线中启用 RoPE</translation>
    </message>
    <message>
        <source>base</source>
        <translation>基数</translation>
    </message>
    <message>
        <source>factor</source>
        <translation>因子</translation>
    </message>
    <message>
        <source>The head whose q and k are shown (the selected head of every panel)</source>
        <translation>显示哪个头的 q 和 k（各面板选中的头）</translation>
    </message>
    <message>
        <source>The query token: its row of Q before RoPE (the selected query row)</source>
        <translation>查询词元：它在 RoPE 之前的 Q 行（选中的查询行）</translation>
    </message>
    <message>
        <source>The key token: its row of K before RoPE</source>
        <translation>键词元：它在 RoPE 之前的 K 行</translation>
    </message>
    <message>
        <source>Which 2-D pair of the head&apos;s dimensions the plane shows</source>
        <translation>平面显示这个头的哪一对二维分量</translation>
    </message>
    <message>
        <source>m (query position)</source>
        <translation>m（查询位置）</translation>
    </message>
    <message>
        <source>n (key position)</source>
        <translation>n（键位置）</translation>
    </message>
    <message>
        <source>The position the query is turned for: by m·θ_i. Choosing a query (a heatmap&apos;s row) sets it to that query&apos;s position, offset + row</source>
        <translation>查询按哪个位置旋转：转 m·θ_i。选择一个查询（热图的一行）会把它设为该查询的位置，即偏移 + 行号</translation>
    </message>
    <message>
        <source>The position the key is turned for: by n·θ_i. Choosing a key (a heatmap&apos;s column) sets it to that key&apos;s position, offset + column</source>
        <translation>键按哪个位置旋转：转 n·θ_i。选择一个键（热图的一列）会把它设为该键的位置，即偏移 + 列号</translation>
    </message>
    <message>
        <source>lock distance m − n</source>
        <translation>锁定距离 m − n</translation>
    </message>
    <message>
        <source>Move n with m (and m with n): both arrows turn, the angle between them stays</source>
        <translation>n 随 m 移动（m 也随 n）：两支箭头都转，夹角不变</translation>
    </message>
    <message>
        <source>Same q and k at every position</source>
        <translation>每个位置用同样的 q 和 k</translation>
    </message>
    <message>
        <source>Open a RoPE-ready example (d = 4, RoPE on)</source>
        <translation>打开可用 RoPE 的示例（d = 4，RoPE 开）</translation>
    </message>
    <message>
        <source>Random Q, K, V with an even width, RoPE on — one undo step: Ctrl+Z brings yours back</source>
        <translation>宽度为偶数的随机 Q、K、V，RoPE 打开——一步撤销：Ctrl+Z 恢复你原来的</translation>
    </message>
    <message>
        <source>m − n  (query position − key position)</source>
        <translation>m − n（查询位置 − 键位置）</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
</context>
<context>
    <name>Sensitivity</name>
    <message>
        <source>score S[i, j]</source>
        <translation>分数 S[i, j]</translation>
    </message>
    <message>
        <source>query Q[i, c]</source>
        <translation>查询 Q[i, c]</translation>
    </message>
    <message>
        <source>key K[j, c]</source>
        <translation>键 K[j, c]</translation>
    </message>
    <message>
        <source>Nudge one number by ε and follow it: ① which scores it moves, ② how each weight of those rows changes (the softmax&apos;s Jacobian ∂a_j/∂s_i = a_j(δ_ij − a_i): the nudged key&apos;s weight rises by a_i(1 − a_i), every other falls by a_j·a_i, so the row still sums to 1), ③ how the outputs change (ΔO = ΔA·V). First order: ε times the derivative, exact as ε → 0. The cell is the selected query row and key (click one in ① or ②).</source>
        <translation>把一个数微调 ε 并跟着它走：① 它动了哪些分数，② 那些行的每个权重怎么变（softmax 的雅可比 ∂a_j/∂s_i = a_j(δ_ij − a_i)：被微调的键的权重升高 a_i(1 − a_i)，其余每个降低 a_j·a_i，所以每行之和仍为 1），③ 输出怎么变（ΔO = ΔA·V）。一阶近似：ε 乘以导数，ε → 0 时精确。微调的格子是选中的查询行和键（在 ① 或 ② 中点一个）。</translation>
    </message>
    <message>
        <source>What a nudge moves stays hidden until the lesson has revealed ② and ③</source>
        <translation>微调带动了什么，在课程揭示 ② 和 ③ 之前保持隐藏</translation>
    </message>
    <message>
        <source>① ΔS (the nudge)</source>
        <translation>① ΔS（微调）</translation>
    </message>
    <message>
        <source>How much each score moves: only the nudged score, a query&apos;s whole row, or a key&apos;s whole column</source>
        <translation>每个分数动了多少：只有被微调的分数，或一个查询的整行，或一个键的整列</translation>
    </message>
    <message>
        <source>How each weight moves: a_j(Δs_j − Σ_i a_i·Δs_i), row by row. A masked key&apos;s weight stays 0</source>
        <translation>每个权重怎么动：逐行 a_j(Δs_j − Σ_i a_i·Δs_i)。被掩码的键权重保持为 0</translation>
    </message>
    <message>
        <source>How each output number moves: the weights&apos; change mixing the rows of V (then W_o, if projected)</source>
        <translation>每个输出数怎么动：权重的变化混合 V 的各行（投影模式下再乘 W_o）</translation>
    </message>
    <message>
        <source>computing…</source>
        <translation>计算中…</translation>
    </message>
    <message>
        <source>, head {head}</source>
        <translation>，头 {head}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Nudge {cell} by ε&lt;/b&gt;{heads}: what moves through the softmax ({jacobian})</source>
        <translation>&lt;b&gt;把 {cell} 微调 ε&lt;/b&gt;{heads}：经过 softmax 带动了什么（{jacobian}）</translation>
    </message>
    <message>
        <source> — what is shown is from before the last change</source>
        <translation>——显示的是上一次改动之前的结果</translation>
    </message>
    <message>
        <source>&lt;b&gt;computing…&lt;/b&gt; the nudge through {rows} × {cols} weights{before}</source>
        <translation>&lt;b&gt;计算中…&lt;/b&gt;微调经过 {rows} × {cols} 个权重{before}</translation>
    </message>
    <message>
        <source>no weight</source>
        <translation>没有权重</translation>
    </message>
    <message>
        <source>Nothing moves: {cell} is masked (its weight is 0 whatever the score), or its row gives all its weight to one key.</source>
        <translation>什么都没动：{cell} 被掩码（无论分数多少，权重都是 0），或者它那一行把全部权重给了一个键。</translation>
    </message>
    <message>
        <source>Nothing moves: {cell} is masked (its weight is 0 whatever the score).</source>
        <translation>什么都没动：{cell} 被掩码（无论分数多少，权重都是 0）。</translation>
    </message>
    <message>
        <source>Nothing moves: the row of {cell} gives all its weight to one key (a weight of 1 or 0 moves by a(1 − a) = 0).</source>
        <translation>什么都没动：{cell} 所在的行把全部权重给了一个键（权重为 1 或 0 时，变化 a(1 − a) = 0）。</translation>
    </message>
    <message>
        <source> (in heads {heads})</source>
        <translation>（在头 {heads} 中）</translation>
    </message>
    <message>
        <source>Nudging {cell} by +{epsilon}{reach} moves most: {weights}; {outputs}</source>
        <translation>把 {cell} 微调 +{epsilon}{reach}，动得最多的：{weights}；{outputs}</translation>
    </message>
    <message>
        <source>no output</source>
        <translation>没有输出</translation>
    </message>
    <message>
        <source>Its weight is only {weight}: a score that gets almost no weight moves almost nothing (each ∂a&lt;sub&gt;j&lt;/sub&gt;/∂s&lt;sub&gt;i&lt;/sub&gt; carries a&lt;sub&gt;i&lt;/sub&gt;). Click a darker cell of ② to nudge that one.</source>
        <translation>它的权重只有 {weight}：几乎得不到权重的分数，轻推它几乎什么也不会动（每个 ∂a&lt;sub&gt;j&lt;/sub&gt;/∂s&lt;sub&gt;i&lt;/sub&gt; 都带着 a&lt;sub&gt;i&lt;/sub&gt;）。点 ② 中颜色更深的格子来轻推那一个。</translation>
    </message>
    <message>
        <source>a nudge of ε = {epsilon} moves it by about {change}</source>
        <translation>微调 ε = {epsilon} 让它大约变化 {change}</translation>
    </message>
    <message>
        <source>What to nudge: a score directly, or a number of Q or K (as the scores use them, after RoPE when it is on)</source>
        <translation>微调什么：直接微调一个分数，或 Q、K 中的一个数（按分数所用的值，开启 RoPE 时为旋转之后）</translation>
    </message>
    <message>
        <source>The column c inside the shown head (0 … d_h − 1) of the query&apos;s or key&apos;s vector</source>
        <translation>查询或键的向量在所显示的头内的第 c 列（0 … d_h − 1）</translation>
    </message>
    <message>
        <source>The size of the nudge; the changes shown are ε times the derivatives</source>
        <translation>微调的大小；显示的变化是 ε 乘以导数</translation>
    </message>
    <message>
        <source>Nudge</source>
        <translation>微调</translation>
    </message>
</context>
<context>
    <name>Session</name>
    <message>
        <source>{where}: {place} must be a string, not {value}</source>
        <translation>{where}：{place} 必须是字符串，而不是 {value}</translation>
    </message>
    <message>
        <source>{where}: {place} is empty</source>
        <translation>{where}：{place} 是空的</translation>
    </message>
    <message>
        <source>{where}: {place} has {value} characters; the most is {max_chars}</source>
        <translation>{where}：{place} 有 {value} 个字符；最多 {max_chars} 个</translation>
    </message>
    <message>
        <source>an unpaired surrogate, which is not valid Unicode</source>
        <translation>一个不成对的代理码位，不是有效的 Unicode</translation>
    </message>
    <message>
        <source>a control character</source>
        <translation>一个控制字符</translation>
    </message>
    <message>
        <source>{where}: {place} contains {kind} (U+{char} at character {value})</source>
        <translation>{where}：{place} 含有{kind}（第 {value} 个字符处的 U+{char}）</translation>
    </message>
    <message>
        <source>{where}: {place} must be a list of strings, not {tokens}</source>
        <translation>{where}：{place} 必须是字符串列表，而不是 {tokens}</translation>
    </message>
    <message>
        <source>a session needs at least one token</source>
        <translation>会话至少需要一个词元</translation>
    </message>
    <message>
        <source>leave it out for self-attention</source>
        <translation>自注意力时请省略它</translation>
    </message>
    <message>
        <source>{where}: {place} is empty; {need}</source>
        <translation>{where}：{place} 是空的；{need}</translation>
    </message>
    <message>
        <source>{where}: {place} has {tokens} entries; the most is {max_tokens}</source>
        <translation>{where}：{place} 有 {tokens} 项；最多 {max_tokens} 项</translation>
    </message>
    <message>
        <source>{where}: matrices: unknown matrix {text} (version {version} holds {matrix_axes})</source>
        <translation>{where}：matrices：未知的矩阵 {text}（第 {version} 版包含 {matrix_axes}）</translation>
    </message>
    <message>
        <source>{where}: matrices: missing matrix {name}</source>
        <translation>{where}：matrices：缺少矩阵 {name}</translation>
    </message>
    <message>
        <source>{where}: matrices: the projections come together; {present} without {missing}</source>
        <translation>{where}：matrices：投影矩阵要一起给出；有 {present} 却没有 {missing}</translation>
    </message>
    <message>
        <source>{where}: matrices: {source_matrix} (the keys&apos; token vectors) belongs to a cross-attention session, which has query_tokens; this one has none</source>
        <translation>{where}：matrices：{source_matrix}（键的词元向量）属于交叉注意力会话，那种会话有 query_tokens；这个会话没有</translation>
    </message>
    <message>
        <source>{where}: matrices: a projected cross-attention session needs {source_matrix}, the token vectors of the keys (one row per token; X has one per query token)</source>
        <translation>{where}：matrices：投影模式的交叉注意力会话需要 {source_matrix}，即键的词元向量（每个词元一行；X 是每个查询词元一行）</translation>
    </message>
    <message>
        <source>has</source>
        <translation>有</translation>
    </message>
    <message>
        <source>{place} {verb} {cols} columns; the most is {max_dim}</source>
        <translation>{place} {verb} {cols} 列；最多 {max_dim} 列</translation>
    </message>
    <message>
        <source>{place} {verb} {rows}×{cols} = {cells} cells; the most is {max_cells}</source>
        <translation>{place} {verb} {rows}×{cols} = {cells} 个格子；最多 {max_cells} 个</translation>
    </message>
    <message>
        <source>{place} {verb} {rows} rows; the most is {max_dim} (its rows are {row_axis_text}, {row_axis_name})</source>
        <translation>{place} {verb} {rows} 行；最多 {max_dim} 行（它的行是 {row_axis_text}，{row_axis_name}）</translation>
    </message>
    <message>
        <source>{place} has {rows} but there are {expected}</source>
        <translation>{place} 有 {n_rows} 行，但有 {n_expected} 个词元</translation>
    </message>
    <message>
        <source>{place} has {rows} but there are {expected} (query_tokens: one row per query)</source>
        <translation>{place} 有 {n_rows} 行，但有 {n_expected} 个查询词元（query_tokens：每个查询一行）</translation>
    </message>
    <message>
        <source>{place} has {rows} but there are {expected} (tokens: one row per key and value)</source>
        <translation>{place} 有 {n_rows} 行，但有 {n_expected} 个词元（tokens：每个键和值一行）</translation>
    </message>
    <message>
        <source>{where}: matrices must be an object of named matrices, not {matrices}</source>
        <translation>{where}：matrices 必须是由命名矩阵组成的对象，而不是 {matrices}</translation>
    </message>
    <message>
        <source>{where}: {place} must be a 2-D array of numbers, not {array}</source>
        <translation>{where}：{place} 必须是二维数字数组，而不是 {array}</translation>
    </message>
    <message>
        <source>{where}: {place} holds {dtype} values; it must hold real numbers</source>
        <translation>{where}：{place} 存的是 {dtype} 值；必须是实数</translation>
    </message>
    <message>
        <source>{where}: {place} is {ndim}-D; it must be 2-D</source>
        <translation>{where}：{place} 是 {ndim} 维的；必须是 2 维</translation>
    </message>
    <message>
        <source>{where}: {place} has no columns</source>
        <translation>{where}：{place} 没有列</translation>
    </message>
    <message>
        <source>{where}: {place}</source>
        <translation>{where}：{place}</translation>
    </message>
    <message>
        <source>{where}: {place} has {size} but matrices.{first} has {expected} (both are {axis_text}, {axis_name})</source>
        <translation>{where}：{place} 有 {size}，但 matrices.{first} 有 {expected}（两者都是 {axis_text}，{axis_name}）</translation>
    </message>
    <message>
        <source>values must be finite</source>
        <translation>值必须是有限数</translation>
    </message>
    <message>
        <source>values must lie within ±{most}</source>
        <translation>值必须在 ±{most} 之内</translation>
    </message>
    <message>
        <source>{where}: {place} row {r} col {c} is {value}; {reason}</source>
        <translation>{where}：{place} 第 {r} 行第 {c} 列是 {value}；{reason}</translation>
    </message>
    <message>
        <source>{where}: layout must be null or an object of strings, not {layout}</source>
        <translation>{where}：layout 必须是 null 或由字符串组成的对象，而不是 {layout}</translation>
    </message>
    <message>
        <source>{where}: {place} contains an unpaired surrogate (U+{value}), which is not valid Unicode</source>
        <translation>{where}：{place} 含有不成对的代理码位（U+{value}），不是有效的 Unicode</translation>
    </message>
    <message>
        <source>{where}: layout is larger than {max_layout_bytes} bytes</source>
        <translation>{where}：layout 大于 {max_layout_bytes} 字节</translation>
    </message>
    <message>
        <source>{where}: {place} must be an integer, not {value}</source>
        <translation>{where}：{place} 必须是整数，而不是 {value}</translation>
    </message>
    <message>
        <source>a very large integer</source>
        <translation>一个非常大的整数</translation>
    </message>
    <message>
        <source>{where}: {place} is {shown}; it must be {low}..{high}{note}</source>
        <translation>{where}：{place} 是 {shown}；它必须在 {low}..{high} 之间{note}</translation>
    </message>
    <message>
        <source>{where}: model_head must be a ModelHead, not {head}</source>
        <translation>{where}：model_head 必须是 ModelHead，而不是 {head}</translation>
    </message>
    <message>
        <source>{where}: model_head.folder {folder} is not an absolute path (the checkpoint folder is written whole, as /home/me/models/gpt2)</source>
        <translation>{where}：model_head.folder {folder} 不是绝对路径（检查点文件夹要写完整，如 /home/me/models/gpt2）</translation>
    </message>
    <message>
        <source> (counted from 0: the window&apos;s layer 1 head 1 is layer 0 head 0 here)</source>
        <translation>（从 0 数起：窗口里的第 1 层第 1 个头，在这里是第 0 层第 0 个头）</translation>
    </message>
    <message>
        <source>{where}: model_head.learned_positions must be true or false, not {learned_positions}</source>
        <translation>{where}：model_head.learned_positions 必须是 true 或 false，而不是 {learned_positions}</translation>
    </message>
    <message>
        <source>{where}: model_head.ids must be a list of token ids, not {ids}</source>
        <translation>{where}：model_head.ids 必须是词元 id 的列表，而不是 {ids}</translation>
    </message>
    <message>
        <source>{where}: model_head.ids has {ids} but there are {tokens} (one token id per token of the model&apos;s text)</source>
        <translation>{where}：model_head.ids 有 {n_ids} 个 id，但有 {n_tokens} 个词元（模型文本的每个词元对应一个 id）</translation>
    </message>
    <message>
        <source> (a token id)</source>
        <translation>（一个词元 id）</translation>
    </message>
    <message>
        <source>{where}: not a Session but {session}</source>
        <translation>{where}：不是 Session，而是 {session}</translation>
    </message>
    <message>
        <source>{name} is not allowed; every number must be finite</source>
        <translation>不允许 {name}；每个数都必须是有限数</translation>
    </message>
    <message>
        <source>a number {text} characters long is not allowed</source>
        <translation>不允许长达 {text} 个字符的数</translation>
    </message>
    <message>
        <source>the number {text} is too large to hold</source>
        <translation>数 {text} 太大，放不下</translation>
    </message>
    <message>
        <source>an integer {text} digits long is not allowed</source>
        <translation>不允许长达 {text} 位的整数</translation>
    </message>
    <message>
        <source>the field {key} appears twice in one object</source>
        <translation>字段 {key} 在同一个对象里出现了两次</translation>
    </message>
    <message>
        <source> at line {line}, column {column}</source>
        <translation>（第 {line} 行第 {column} 列）</translation>
    </message>
    <message>
        <source>{where}: is UTF-16 text; session files are UTF-8</source>
        <translation>{where}：是 UTF-16 文本；会话文件是 UTF-8</translation>
    </message>
    <message>
        <source>{where}: is not UTF-8 text (byte 0x{data} at offset {start} cannot be decoded)</source>
        <translation>{where}：不是 UTF-8 文本（偏移 {start} 处的字节 0x{data} 无法解码）</translation>
    </message>
    <message>
        <source>{where}: is empty</source>
        <translation>{where}：是空的</translation>
    </message>
    <message>
        <source>{where}: {message}{text}</source>
        <translation>{where}：{message}{text}</translation>
    </message>
    <message>
        <source> (the file ends too early; is it truncated?)</source>
        <translation>（文件提前结束了；是不是不完整？）</translation>
    </message>
    <message>
        <source>{where}: is not valid JSON: {what} at line {lineno}, column {colno}{ending}</source>
        <translation>{where}：不是有效的 JSON，第 {lineno} 行第 {colno} 列：{what}{ending}</translation>
    </message>
    <message>
        <source>{where}: is nested too deeply to be a session file</source>
        <translation>{where}：嵌套太深，不可能是会话文件</translation>
    </message>
    <message>
        <source>the byte 0x{byte}, so it is not text</source>
        <translation>字节 0x{byte}，所以不是文本</translation>
    </message>
    <message>
        <source>{where}: is not a session file: a session is JSON text that begins with “{{”, and this file begins with {begins}</source>
        <translation>{where}：不是会话文件：会话是以“{{”开头的 JSON 文本，而这个文件以 {begins} 开头</translation>
    </message>
    <message>
        <source>{where}: is {data}; session files are limited to {max_file_bytes}</source>
        <translation>{where}：有 {data}；会话文件最多 {max_file_bytes}</translation>
    </message>
    <message>
        <source>{where}: is not a session file ({detail})</source>
        <translation>{where}：不是会话文件（{detail}）</translation>
    </message>
    <message>
        <source>it holds {count} &apos;{value}&apos; characters; a session holds at most {most}, its text included</source>
        <translation>它含有 {count} 个 &apos;{value}&apos; 字符；会话连同文本最多 {most} 个</translation>
    </message>
    <message>
        <source>it holds a string of {end}; the longest text in a session is the layout, at most {max_layout_bytes}</source>
        <translation>它含有一个 {end} 的字符串；会话中最长的文本是 layout，最多 {max_layout_bytes}</translation>
    </message>
    <message>
        <source>it holds {quotes} strings; a session holds at most {strings}</source>
        <translation>它含有 {quotes} 个字符串；会话最多 {strings} 个</translation>
    </message>
    <message>
        <source>it holds a string of {longest} or more; the longest text in a session is the layout, at most {max_layout_bytes}</source>
        <translation>它含有一个 {longest} 或更长的字符串；会话中最长的文本是 layout，最多 {max_layout_bytes}</translation>
    </message>
    <message>
        <source>it holds {objects} objects; a session holds at most {most_objects}</source>
        <translation>它含有 {objects} 个对象；会话最多 {most_objects} 个</translation>
    </message>
    <message>
        <source>it holds {lists} lists; a session holds at most {most_lists} (the tokens, and every matrix and its rows)</source>
        <translation>它含有 {lists} 个列表；会话最多 {most_lists} 个（词元，以及每个矩阵和它的各行）</translation>
    </message>
    <message>
        <source>it holds a list of {commas} values; the longest list in a session is the tokens, at most {max_tokens}</source>
        <translation>它含有一个 {commas} 个值的列表；会话中最长的列表是词元，最多 {max_tokens} 个</translation>
    </message>
    <message>
        <source>it holds {other} values outside its lists of numbers and tokens; a session holds at most {other_values} (fields, matrix rows, layout members)</source>
        <translation>它在数字列表和词元列表之外含有 {other} 个值；会话最多 {other_values} 个（字段、矩阵行、layout 成员）</translation>
    </message>
    <message>
        <source>{where}: is nested too deeply to be a session file ({depth} levels; a session nests 4)</source>
        <translation>{where}：嵌套太深，不可能是会话文件（{depth} 层；会话只嵌套 4 层）</translation>
    </message>
    <message>
        <source>{where}: is not a session file (it holds a list, not an object)</source>
        <translation>{where}：不是会话文件（它存的是列表，不是对象）</translation>
    </message>
    <message>
        <source>{where}: is not a session file (it holds {data}, not an object)</source>
        <translation>{where}：不是会话文件（它存的是 {data}，不是对象）</translation>
    </message>
    <message>
        <source>{where}: is not an Attention Explorer session (it has no &quot;format&quot; field)</source>
        <translation>{where}：不是 Attention Explorer 会话（没有 &quot;format&quot; 字段）</translation>
    </message>
    <message>
        <source>{where}: is not an Attention Explorer session (format is {format}, expected {format_name})</source>
        <translation>{where}：不是 Attention Explorer 会话（format 是 {format}，应为 {format_name}）</translation>
    </message>
    <message>
        <source>{where}: has no &quot;version&quot; field</source>
        <translation>{where}：没有 &quot;version&quot; 字段</translation>
    </message>
    <message>
        <source>{where}: version must be an integer, not {version}</source>
        <translation>{where}：version 必须是整数，而不是 {version}</translation>
    </message>
    <message>
        <source>{where}: version {version} is not valid (versions start at 1)</source>
        <translation>{where}：版本 {version} 无效（版本从 1 开始）</translation>
    </message>
    <message>
        <source>{where}: written by a newer version of Attention Explorer (version {version}; this one reads up to {newest_version})</source>
        <translation>{where}：由更新版本的 Attention Explorer 写成（版本 {version}；这个版本最多读到 {newest_version}）</translation>
    </message>
    <message>
        <source>{where}: no upgrade from version {version} to {next_version}</source>
        <translation>{where}：没有从版本 {version} 到 {next_version} 的升级</translation>
    </message>
    <message>
        <source>{where}: could not upgrade it from version {version} to {next_version} ({kind}: {detail})</source>
        <translation>{where}：无法从版本 {version} 升级到 {next_version}（{kind}：{detail}）</translation>
    </message>
    <message>
        <source>{where}: upgrading from version {version} gave {data}</source>
        <translation>{where}：从版本 {version} 升级得到的是 {data}</translation>
    </message>
    <message>
        <source> (did you mean {name}?)</source>
        <translation>（你是指 {name} 吗？）</translation>
    </message>
    <message>
        <source>{prefix}unknown field {text}{hint}</source>
        <translation>{prefix}未知字段 {text}{hint}</translation>
    </message>
    <message>
        <source>{prefix}missing field {name}</source>
        <translation>{prefix}缺少字段 {name}</translation>
    </message>
    <message>
        <source>{where}: {place} must be a list of rows, not {rows}</source>
        <translation>{where}：{place} 必须是由行组成的列表，而不是 {rows}</translation>
    </message>
    <message>
        <source>{where}: {place} has no rows</source>
        <translation>{where}：{place} 没有行</translation>
    </message>
    <message>
        <source>{where}: {place} row {i} must be a list of numbers, not {row}</source>
        <translation>{where}：{place} 第 {i} 行必须是数字列表，而不是 {row}</translation>
    </message>
    <message>
        <source>{where}: {place} row {i} has {row} numbers but row 0 has {width}</source>
        <translation>{where}：{place} 第 {i} 行有 {row} 个数，但第 0 行有 {width} 个</translation>
    </message>
    <message>
        <source>{where}: {place} row {i} col {j} is {value}; it must be a number</source>
        <translation>{where}：{place} 第 {i} 行第 {j} 列是 {value}；它必须是数字</translation>
    </message>
    <message>
        <source>{where}: {place} has {rows}×{width} = {cells} cells; the most is {max_cells}</source>
        <translation>{where}：{place} 有 {rows}×{width} = {cells} 个格子；最多 {max_cells} 个</translation>
    </message>
    <message>
        <source>{where}: model_head must be an object, not {value} (leave it out when the session is no real model&apos;s head)</source>
        <translation>{where}：model_head 必须是对象，而不是 {value}（会话不是真实模型的头时，请省略它）</translation>
    </message>
    <message>
        <source>{where}: tokens must be a list of strings, not {tokens}</source>
        <translation>{where}：tokens 必须是字符串列表，而不是 {tokens}</translation>
    </message>
    <message>
        <source>{where}: settings must be an object, not {settings}</source>
        <translation>{where}：settings 必须是对象，而不是 {settings}</translation>
    </message>
    <message>
        <source>{where}: expected the text of a session file, not {text}</source>
        <translation>{where}：应为会话文件的文本，而不是 {text}</translation>
    </message>
    <message>
        <source>{where}: is too large to load (out of memory)</source>
        <translation>{where}：太大，无法加载（内存不足）</translation>
    </message>
    <message>
        <source>{where}: could not be read ({kind}: {detail})</source>
        <translation>{where}：无法读取（{kind}：{detail}）</translation>
    </message>
    <message>
        <source>{name}: no such file</source>
        <translation>{name}：没有这个文件</translation>
    </message>
    <message>
        <source>{name}: cannot be opened ({reason})</source>
        <translation>{name}：无法打开（{reason}）</translation>
    </message>
    <message>
        <source>{name}: is not a usable file path ({why})</source>
        <translation>{name}：不是可用的文件路径（{why}）</translation>
    </message>
    <message>
        <source>{name}: is a folder, not a session file</source>
        <translation>{name}：是文件夹，不是会话文件</translation>
    </message>
    <message>
        <source>{name}: is not a regular file</source>
        <translation>{name}：不是普通文件</translation>
    </message>
    <message>
        <source>{name}: is {st_size}; session files are limited to {max_file_bytes}</source>
        <translation>{name}：有 {st_size}；会话文件最多 {max_file_bytes}</translation>
    </message>
    <message>
        <source>{name}: cannot be read ({reason})</source>
        <translation>{name}：无法读取（{reason}）</translation>
    </message>
    <message>
        <source>{name}: is too large to load (out of memory)</source>
        <translation>{name}：太大，无法加载（内存不足）</translation>
    </message>
    <message>
        <source>{name}: is larger than {max_file_bytes}, the limit for session files</source>
        <translation>{name}：大于会话文件的上限 {max_file_bytes}</translation>
    </message>
    <message>
        <source>{where}: settings must be a Settings, not {settings}</source>
        <translation>{where}：settings 必须是 Settings，而不是 {settings}</translation>
    </message>
    <message>
        <source>{where}: {why}</source>
        <translation>{where}：{why}</translation>
    </message>
    <message>
        <source>{name}: the session would be {size}; session files are limited to {max_file_bytes} (export large matrices as .npy instead)</source>
        <translation>{name}：会话将有 {size}；会话文件最多 {max_file_bytes}（大矩阵请改为导出成 .npy）</translation>
    </message>
    <message>
        <source>{name}: could not be saved ({reason})</source>
        <translation>{name}：无法保存（{reason}）</translation>
    </message>
    <message>
        <source>{name}: could not be saved ({kind}: {why})</source>
        <translation>{name}：无法保存（{kind}：{why}）</translation>
    </message>
    <message>
        <source>{where}: is a damaged binary session ({kind}: {detail})</source>
        <translation>{where}：是已损坏的二进制会话（{kind}：{detail}）</translation>
    </message>
    <message>
        <source>{where}: is {size}; session files are limited to {max_file_bytes}</source>
        <translation>{where}：有 {size}；会话文件最多 {max_file_bytes}</translation>
    </message>
    <message>
        <source>{where}: is an archive of {members} members; a binary session has at most {max_members}</source>
        <translation>{where}：是含 {members} 个成员的压缩包；二进制会话最多 {max_members} 个</translation>
    </message>
    <message>
        <source>{where}: is a zip archive but not a binary session (it has no {description})</source>
        <translation>{where}：是 zip 压缩包，但不是二进制会话（里面没有 {description}）</translation>
    </message>
    <message>
        <source>{where}: {filename} is encrypted</source>
        <translation>{where}：{filename} 已加密</translation>
    </message>
    <message>
        <source>{where}: its {description} is {file_size}; the most is {max_description_bytes}</source>
        <translation>{where}：其中的 {description} 有 {file_size}；最多 {max_description_bytes}</translation>
    </message>
    <message>
        <source>{where}: its {description} is larger than {max_description_bytes}</source>
        <translation>{where}：其中的 {description} 大于 {max_description_bytes}</translation>
    </message>
    <message>
        <source>{where}: {place} must name a .npy member of the archive, not {value}</source>
        <translation>{where}：{place} 必须指向压缩包里的一个 .npy 成员，而不是 {value}</translation>
    </message>
    <message>
        <source>{where}: {place} names {value}, which is not an .npy member of the archive</source>
        <translation>{where}：{place} 指向 {value}，它不是压缩包里的 .npy 成员</translation>
    </message>
    <message>
        <source>would have</source>
        <translation>将有</translation>
    </message>
</context>
<context>
    <name>Settings</name>
    <message>
        <source>scale mode</source>
        <translation>缩放方式</translation>
    </message>
    <message>
        <source>1/√d  (standard)</source>
        <translation>1/√d（标准）</translation>
    </message>
    <message>
        <source>none (× 1)</source>
        <translation>不缩放（× 1）</translation>
    </message>
    <message>
        <source>custom value</source>
        <translation>自定义值</translation>
    </message>
    <message>
        <source>scale</source>
        <translation>缩放</translation>
    </message>
    <message>
        <source>temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>causal mask</source>
        <translation>因果掩码</translation>
    </message>
    <message>
        <source>heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>Each head takes d / H whole columns of Q and K (and d_v / H of V), so only head counts that divide d = {d} and d_v = {dv} are offered: {options}</source>
        <translation>每个头占 Q 和 K 的 d / H 整列（V 的 d_v / H 列），所以只提供能整除 d = {d} 和 d_v = {dv} 的头数：{options}</translation>
    </message>
    <message>
        <source>query row</source>
        <translation>查询行</translation>
    </message>
    <message>
        <source>shown head</source>
        <translation>显示的头</translation>
    </message>
    <message>
        <source>source of Q, K, V</source>
        <translation>Q、K、V 的来源</translation>
    </message>
    <message>
        <source>edit Q, K, V directly</source>
        <translation>直接编辑 Q、K、V</translation>
    </message>
    <message>
        <source>project X:  Q = X·W_qᵀ, K = X·W_kᵀ, V = X·W_vᵀ</source>
        <translation>由 X 投影：Q = X·W_qᵀ, K = X·W_kᵀ, V = X·W_vᵀ</translation>
    </message>
    <message>
        <source>positions</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>none (order is invisible)</source>
        <translation>无（看不见顺序）</translation>
    </message>
    <message>
        <source>sinusoidal PE added to X</source>
        <translation>正弦位置编码加到 X 上</translation>
    </message>
    <message>
        <source>ALiBi: bias −m·distance on the scores</source>
        <translation>ALiBi：分数加上偏置 −m·距离</translation>
    </message>
    <message>
        <source>RoPE</source>
        <translation>RoPE 旋转位置编码</translation>
    </message>
    <message>
        <source>RoPE base</source>
        <translation>RoPE 基数</translation>
    </message>
    <message>
        <source>RoPE convention</source>
        <translation>RoPE 配对方式</translation>
    </message>
    <message>
        <source>half — GPT-NeoX / Llama</source>
        <translation>对半 — GPT-NeoX / Llama</translation>
    </message>
    <message>
        <source>interleaved — GPT-J / RoFormer</source>
        <translation>交错 — GPT-J / RoFormer</translation>
    </message>
    <message>
        <source>RoPE offset</source>
        <translation>RoPE 偏移</translation>
    </message>
    <message>
        <source>RoPE scaling</source>
        <translation>RoPE 频率缩放</translation>
    </message>
    <message>
        <source>none — θ_i as the base gives it</source>
        <translation>无 — θ_i 由基数决定</translation>
    </message>
    <message>
        <source>llama3 — Llama 3.1 / 3.2</source>
        <translation>llama3 — Llama 3.1 / 3.2</translation>
    </message>
    <message>
        <source>scaling factor</source>
        <translation>缩放倍数</translation>
    </message>
    <message>
        <source>low_freq_factor</source>
        <translation>low_freq_factor 低频因子</translation>
    </message>
    <message>
        <source>high_freq_factor</source>
        <translation>high_freq_factor 高频因子</translation>
    </message>
    <message>
        <source>original context</source>
        <translation>原始上下文长度</translation>
    </message>
    <message>
        <source>K/V heads</source>
        <translation>K/V 头</translation>
    </message>
    <message>
        <source>prefill</source>
        <translation>预填充</translation>
    </message>
    <message>
        <source>decode step t</source>
        <translation>解码步 t</translation>
    </message>
</context>
<context>
    <name>SettingsCheck</name>
    <message>
        <source>one of {values}</source>
        <translation>{values} 之一</translation>
    </message>
    <message>
        <source>above {low} and at most {high}</source>
        <translation>大于 {low} 且不超过 {high}</translation>
    </message>
    <message>
        <source>in {low}..{high}</source>
        <translation>在 {low}..{high} 之间</translation>
    </message>
    <message>
        <source>at least {low}</source>
        <translation>至少为 {low}</translation>
    </message>
    <message>
        <source>true or false</source>
        <translation>true 或 false</translation>
    </message>
    <message>
        <source>{place} must be true or false, not {value}</source>
        <translation>{place} 必须是 true 或 false，而不是 {value}</translation>
    </message>
    <message>
        <source>{place} must be {allowed}, not {value}</source>
        <translation>{place} 必须是 {allowed}，而不是 {value}</translation>
    </message>
    <message>
        <source>{place} must be an integer, not {value}</source>
        <translation>{place} 必须是整数，而不是 {value}</translation>
    </message>
    <message>
        <source>{place} must be a number, not {value}</source>
        <translation>{place} 必须是数字，而不是 {value}</translation>
    </message>
    <message>
        <source>{place} must be a finite number, not {value}</source>
        <translation>{place} 必须是有限数，而不是 {value}</translation>
    </message>
    <message>
        <source>{place} is {value}; it must lie {allowed}</source>
        <translation>{place} 是 {value}；它必须{allowed}</translation>
    </message>
    <message>
        <source>{place} is {value}; it must be {allowed}</source>
        <translation>{place} 是 {value}；它必须{allowed}</translation>
    </message>
    <message>
        <source>{prefix}kv_heads is {kv_setting}, which does not divide heads {heads} (kv_heads is 0 for as many K/V heads as heads, or one of {options})</source>
        <translation>{prefix}kv_heads 是 {kv_setting}，不能整除头数 {heads}（kv_heads 为 0 表示 K/V 头与头一样多，否则须是 {options} 之一）</translation>
    </message>
    <message>
        <source>the projected K width (rows of Wk)</source>
        <translation>投影后的 K 宽度（Wk 的行数）</translation>
    </message>
    <message>
        <source>the K width</source>
        <translation>K 的宽度</translation>
    </message>
    <message>
        <source>{prefix}kv_heads is {kv}, but {k_text} is {k_width}: {heads} heads of d_h = {d_h} (the Q width {qk} / {heads}) sharing {kv} K/V heads need kv_heads·d_h = {k_width_needed}</source>
        <translation>{prefix}kv_heads 是 {kv}，但{k_text}是 {k_width}：{heads} 个 d_h = {d_h} 的头（Q 的宽度 {qk} / {heads}）共用 {kv} 个 K/V 头，需要 kv_heads·d_h = {k_width_needed}</translation>
    </message>
    <message>
        <source>{prefix}kv_heads is {kv}, which does not divide the V width {v} (each K/V head takes V width / kv_heads columns)</source>
        <translation>{prefix}kv_heads 是 {kv}，不能整除 V 的宽度 {v}（每个 K/V 头分到 V 宽度 / kv_heads 列）</translation>
    </message>
    <message>
        <source>{prefix}kv_heads is {kv}: the {heads} heads&apos; outputs side by side are heads·(V width / kv_heads) = {heads}·{v} = {outputs_width} wide, but Wo has {o} columns</source>
        <translation>{prefix}kv_heads 是 {kv}：{heads} 个头的输出并排起来宽 头数·(V 宽度 / kv_heads) = {heads}·{v} = {outputs_width}，但 Wo 有 {o} 列</translation>
    </message>
    <message>
        <source>{prefix}causal cannot be on in a cross-attention session (it has query_tokens): its queries read another sequence, which has no future to hide; decoder cross-attention has no causal mask</source>
        <translation>{prefix}causal 在交叉注意力会话（它有 query_tokens）中不能打开：它的查询读的是另一个序列，没有需要遮住的未来；解码器的交叉注意力没有因果掩码</translation>
    </message>
    <message>
        <source>{prefix}source is &apos;projected&apos; but the matrices X, Wq, Wk, Wv and Wo are missing</source>
        <translation>{prefix}source 是 &apos;projected&apos;，但缺少矩阵 X、Wq、Wk、Wv 和 Wo</translation>
    </message>
    <message>
        <source>{prefix}positions is &apos;sinusoidal&apos;, but positions are added to the token vectors X, which only the &apos;projected&apos; source has</source>
        <translation>{prefix}positions 是 &apos;sinusoidal&apos;，但位置编码是加到词元向量 X 上的，只有 &apos;projected&apos; 来源才有 X</translation>
    </message>
    <message>
        <source>with RoPE, heads must be one of {options}</source>
        <translation>使用 RoPE 时，头数必须是 {options} 之一</translation>
    </message>
    <message>
        <source>so it needs an even Q/K width</source>
        <translation>所以 Q/K 的宽度必须是偶数</translation>
    </message>
    <message>
        <source>{prefix}rope needs an even d_h, but each head&apos;s Q/K width d_h = {qk} is odd ({heads} of the Q/K width {qk_width}): RoPE turns pairs of dimensions, {remedy}</source>
        <translation>{prefix}rope 需要偶数的 d_h，但每个头的 Q/K 宽度 d_h = {qk} 是奇数（Q/K 宽度 {qk_width} 分给 {n_heads} 个头）：RoPE 成对旋转维度，{remedy}</translation>
    </message>
    <message>
        <source>{prefix}rope_high_freq_factor is {rope_high_freq_factor}, not above rope_low_freq_factor {rope_low_freq_factor}: llama3 scaling blends the pairs whose wavelengths lie between original context / high_freq_factor and original context / low_freq_factor, so high_freq_factor must be the larger</source>
        <translation>{prefix}rope_high_freq_factor 是 {rope_high_freq_factor}，没有大于 rope_low_freq_factor {rope_low_freq_factor}：llama3 缩放会平滑过渡波长介于 原始上下文 / high_freq_factor 与 原始上下文 / low_freq_factor 之间的维度对，所以 high_freq_factor 必须更大</translation>
    </message>
    <message>
        <source>the Q/K width</source>
        <translation>Q/K 的宽度</translation>
    </message>
    <message>
        <source>the V width</source>
        <translation>V 的宽度</translation>
    </message>
    <message>
        <source>the Q width</source>
        <translation>Q 的宽度</translation>
    </message>
    <message>
        <source>the Q/K width and the V width</source>
        <translation>Q/K 的宽度和 V 的宽度</translation>
    </message>
    <message>
        <source>only 1 head fits</source>
        <translation>只有 1 个头可行</translation>
    </message>
    <message>
        <source>these fit: {options}</source>
        <translation>可行的有：{options}</translation>
    </message>
    <message>
        <source>{prefix}heads is {heads}, which does not divide {text} {widths} (heads must divide {rule}; {fit})</source>
        <translation>{prefix}heads 是 {heads}，不能整除{text} {widths}（头数必须整除{rule}；{fit}）</translation>
    </message>
    <message>
        <source>{prefix}selected_row is {selected_row}; with {tokens} it must lie in 0..{last}</source>
        <translation>{prefix}selected_row 是 {selected_row}；共有 {n_tokens} 个词元，它必须在 0..{last} 之间</translation>
    </message>
    <message>
        <source>{prefix}selected_head is {selected_head}; with {heads} it must lie in 0..{last}</source>
        <translation>{prefix}selected_head 是 {selected_head}；共有 {n_heads} 个头，它必须在 0..{last} 之间</translation>
    </message>
</context>
<context>
    <name>SplitMerge</name>
    <message>
        <source>concatenated back to (L, d_v)</source>
        <translation>拼接回 (L, d_v)</translation>
    </message>
    <message>
        <source>concatenated side by side (L, H·d_v/H_kv = {dv})</source>
        <translation>并排拼接成 (L, H·d_v/H_kv = {dv})</translation>
    </message>
    <message>
        <source>, then projected by W_o</source>
        <translation>，再经 W_o 投影</translation>
    </message>
    <message>
        <source> — outputs hidden until ③ is revealed</source>
        <translation> —— 揭晓 ③ 之前输出隐藏</translation>
    </message>
    <message>
        <source>K and V the same way</source>
        <translation>K 和 V 也这样切</translation>
    </message>
    <message>
        <source>K and V into H_kv = {kv}, each read by {each} query heads in turn</source>
        <translation>K 和 V 切成 H_kv = {n_kv} 个 K/V 头，每个依次被 {each} 个查询头读取</translation>
    </message>
    <message>
        <source>&lt;b&gt;Split and merge&lt;/b&gt;: (L, {w}) → (H, L, d_h) — Q&apos;s {w} = {D} columns are cut into H = {heads} of d_h = {dh} ({kv_text}); each head attends on its own with scale {scale}; the heads&apos; outputs are {merge}.{hide}</source>
        <translation>&lt;b&gt;拆分与合并&lt;/b&gt;：(L, {w}) → (H, L, d_h) —— Q 的 {w} = {D} 列被切成 H = {n_heads} 份，每份 d_h = {dh} 维（{kv_text}）；每个头以缩放 {scale} 各自独立做注意力；各头的输出{merge}。{hide}</translation>
    </message>
    <message>
        <source>Q per head</source>
        <translation>每个头的 Q</translation>
    </message>
    <message>
        <source>K per K/V head</source>
        <translation>每个 K/V 头的 K</translation>
    </message>
    <message>
        <source>attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>in each head</source>
        <translation>在每个头内</translation>
    </message>
    <message>
        <source>scale {scale}</source>
        <translation>缩放 {scale}</translation>
    </message>
    <message>
        <source>head outputs</source>
        <translation>各头输出</translation>
    </message>
    <message>
        <source>concat = output (no W_o)</source>
        <translation>concat = 输出（没有 W_o）</translation>
    </message>
    <message>
        <source>output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>read by heads {spans}</source>
        <translation>被头 {spans} 读取</translation>
    </message>
</context>
<context>
    <name>SqrtD</name>
    <message>
        <source>the spread of q·k grows like √d</source>
        <translation>q·k 的离散度随 √d 增长</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>std of q·k</source>
        <translation>q·k 的标准差</translation>
    </message>
    <message>
        <source>key j</source>
        <translation>键 j</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>even 1/{keys}</source>
        <translation>均匀 1/{keys}</translation>
    </message>
    <message>
        <source>mean entropy of a softmax row (nats)</source>
        <translation>softmax 一行的平均熵（奈特）</translation>
    </message>
    <message>
        <source>even ln {keys}</source>
        <translation>均匀 ln {keys}</translation>
    </message>
    <message>
        <source>entropy</source>
        <translation>熵</translation>
    </message>
    <message>
        <source>Drag d. Without the scale ({unscaled}) one key soon takes almost the whole budget; with it ({scaled}) the weights stay spread, at any d.</source>
        <translation>拖动 d。不缩放({unscaled})时，很快就有一个键拿走几乎全部预算；缩放后({scaled})，无论 d 多大，权重都保持分散。</translation>
    </message>
    <message>
        <source>one query&apos;s {keys} weights at d = {d}</source>
        <translation>d = {d} 时一个查询的 {keys} 个权重</translation>
    </message>
    <message>
        <source>&lt;b&gt;d = {d}&lt;/b&gt;: q·k spread ≈ &lt;b&gt;{spread}&lt;/b&gt; (√d = {sqrt_d}); {unscaled} max weight &lt;b&gt;{unscaled_max}&lt;/b&gt;, {scaled} &lt;b&gt;{scaled_max}&lt;/b&gt;{mean}</source>
        <translation>&lt;b&gt;d = {d}&lt;/b&gt;：q·k 离散度 ≈ &lt;b&gt;{spread}&lt;/b&gt;(√d = {sqrt_d})；{unscaled}最大权重 &lt;b&gt;{unscaled_max}&lt;/b&gt;，{scaled} &lt;b&gt;{scaled_max}&lt;/b&gt;{mean}</translation>
    </message>
    <message>
        <source>unscaled</source>
        <translation>不缩放</translation>
    </message>
    <message>
        <source>scaled</source>
        <translation>缩放后</translation>
    </message>
    <message>
        <source>(mean over {samples} random queries)</source>
        <translation>（{samples} 个随机查询的平均）</translation>
    </message>
    <message>
        <source>The dimension d of the random query and key vectors (log scale)</source>
        <translation>随机查询向量与键向量的维数 d（对数刻度）</translation>
    </message>
    <message>
        <source>The seed of the random queries and keys: the same seed draws the same numbers</source>
        <translation>随机查询和键的种子：同一个种子抽出同样的数</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>Spread: the standard deviation of all {samples}×{keys} scores q·k. Max weight: the largest softmax weight of a row, averaged over the {samples} random queries.</source>
        <translation>离散度：全部 {samples}×{keys} 个分数 q·k 的标准差。最大权重：一行 softmax 权重中最大的那个，对 {samples} 个随机查询取平均。</translation>
    </message>
</context>
<context>
    <name>StateDiff</name>
    <message>
        <source>{heads}, {queries} × {keys}, output {rows} × {d}</source>
        <translation>{n_heads} 个头，{n_queries} 个查询 × {n_keys} 个键，输出 {rows} × {d}</translation>
    </message>
    <message>
        <source>{a} has {a_shape}; {b} has {b_shape}: the shapes must be the same to subtract one from the other</source>
        <translation>{a} 是 {a_shape}；{b} 是 {b_shape}：形状相同才能相减</translation>
    </message>
</context>
<context>
    <name>Table</name>
    <message>
        <source>Select a cell to paste into</source>
        <translation>请先选中要粘贴到的格子</translation>
    </message>
    <message>
        <source>The clipboard holds no numbers to paste</source>
        <translation>剪贴板里没有可粘贴的数字</translation>
    </message>
    <message>
        <source>Pasted row {row} has {values} values but the block is {width} wide; nothing was pasted</source>
        <translation>粘贴的第 {row} 行有 {values} 个值，但这块宽 {width}；什么也没有粘贴</translation>
    </message>
    <message>
        <source> (for {cell})</source>
        <translation>（对应 {cell}）</translation>
    </message>
    <message>
        <source>Pasted row {row}, column {col}{where}: {why}; nothing was pasted</source>
        <translation>粘贴内容第 {row} 行第 {col} 列{where}：{why}；什么也没有粘贴</translation>
    </message>
    <message>
        <source>Row {row}, column {col}</source>
        <translation>格子 [{row}, {col}]</translation>
    </message>
    <message>
        <source>row {row}, column {col}</source>
        <translation>格子 [{row}, {col}]</translation>
    </message>
    <message>
        <source>{cell}: this table is read-only</source>
        <translation>{cell}：这张表只读</translation>
    </message>
    <message>
        <source>{cell}: {why}</source>
        <translation>{cell}：{why}</translation>
    </message>
    <message>
        <source>Nothing to paste</source>
        <translation>没有可粘贴的内容</translation>
    </message>
    <message>
        <source>This table is read-only; nothing was pasted</source>
        <translation>这张表只读；什么也没有粘贴</translation>
    </message>
    <message>
        <source>The pasted block is {height} × {width} (rows × columns), but from {cell} there is room for only {room_rows} × {room_cols}; nothing was pasted</source>
        <translation>粘贴的块是 {height} × {width}（行 × 列），但从 {cell} 开始只放得下 {room_rows} × {room_cols}；什么也没有粘贴</translation>
    </message>
    <message>
        <source>{cell}: {value} is not a finite number within 1e6; nothing was pasted</source>
        <translation>{cell}：{value} 不是绝对值不超过 1e6 的有限数；什么也没有粘贴</translation>
    </message>
    <message>
        <source>Paste at {cell}: {why}</source>
        <translation>粘贴到 {cell}：{why}</translation>
    </message>
</context>
<context>
    <name>Window</name>
    <message>
        <source>Edit any number in Q, K or V — every stage recomputes live. Hover a cell to see how it was made.</source>
        <translation>改动 Q、K、V 中任何一个数——每一步都实时重新计算。鼠标停在格子上可看它是怎么算出来的。</translation>
    </message>
    <message>
        <source>computing attention for {tokens} × {heads}…</source>
        <translation>正在为 {n_tokens} 个词元 × {n_heads} 个头计算注意力…</translation>
    </message>
    <message>
        <source>Could not compute attention for this session: {why}. Change it (fewer heads or tokens) to try again.</source>
        <translation>无法计算这个会话的注意力：{why}。修改它（减少头或词元）后再试。</translation>
    </message>
    <message>
        <source>unknown error</source>
        <translation>未知错误</translation>
    </message>
</context>
</TS>
