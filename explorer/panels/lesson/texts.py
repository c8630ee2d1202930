"""The lesson's words: the three steps and the four guided experiments, in the chapter's Chinese and in English,
and how its cards look."""
from PySide6.QtCore import QT_TRANSLATE_NOOP

CARD_STYLE = """
QGroupBox { font-weight: 600; }
QFrame#lessonCard { border: 1px solid #d3d9e1; border-radius: 6px; background: #fbfcfd; }
QFrame#lessonCard[current="true"] { border: 2px solid #4a7bd0; background: #f4f8ff; }
QLabel#lessonNote { background: #fff7e0; border: 1px solid #ecd9a3; border-radius: 4px; padding: 6px; }
QWidget#lessonHeader { border-bottom: 1px solid #d3d9e1; }
"""
WARN = "#8a5a00"
NOT_DEMO = QT_TRANSLATE_NOOP("Lesson", "Not the demo's numbers or settings — Set it up to load them")

STEPS = (
    # (stage, title, formula, panel, 中文 from the chapter, English)
    (1, QT_TRANSLATE_NOOP("Lesson", "① Scores"), "S = Q Kᵀ / √d", QT_TRANSLATE_NOOP("Lesson", "Scores"),
     "「一次矩阵乘,L² 个点积批发到手。」除以 √d = 「把温度校准回『有分辨力但不极端』的区间」。",
     "One matrix multiplication delivers all L² dot products at once; dividing by √d keeps the scores "
     "discriminating but not extreme."),
    (2, QT_TRANSLATE_NOOP("Lesson", "② Weights"), "A = softmax(S)", QT_TRANSLATE_NOOP("Lesson", "Weights"),
     "「分数表逐行过 softmax……每行变成非负、和为 1 的注意力权重」。",
     "The score table goes through softmax one row at a time: each row becomes non-negative attention "
     "weights that sum to 1 — a budget."),
    (3, QT_TRANSLATE_NOOP("Lesson", "③ Output"), "O = A · V", QT_TRANSLATE_NOOP("Lesson", "Output"),
     "「O 的第 i 行 = 权重行 · V 矩阵 = 各词 value 的凸组合」,「输出不会跑出各 V 围成的凸包」。",
     "Row i of O = the weight row · V = a convex combination of the tokens' values, so the output never "
     "leaves the convex hull of the V rows."),
)

# ① in a cross-attention session: the queries and the keys are two sequences, so not L² but Lq × Lk products
SCORES_EN_CROSS = ("One matrix multiplication delivers all Lq × Lk dot products at once (the chapter's L², with the "
                   "queries and the keys from two sequences); dividing by √d keeps the scores discriminating but not "
                   "extreme.")

EXPERIMENTS = (
    ("① 单步走,每一步先猜再看 · Step through, guessing first",
     "按 ①→②→③ 单步走,每一步先猜再看:分数表里哪格该深?softmax 后每行是不是和为 1?",
     "Step through ①→②→③, guessing before each look: which cell of the score table should be darkest? "
     "After the softmax, does every row sum to 1?"),
    ("② 盯「追」那一行 · The row of 追",
     "盯「追」那一行:它同时深看「猫」与「激光点」——动词把主语宾语的信息抓进自己的新向量,readout "
     "里能看到它的输出确实混进了两者的成分。",
     "Watch the row of 追: it looks hard at both 猫 and 激光点 — the verb pulls the subject and the object "
     "into its new vector, and its output really mixes in both."),
    ("③ 「激光点」看「红色」 · 激光点 looks at 红色",
     "盯「激光点」那行对「红色」的权重:修饰关系被捕捉。",
     "Watch the weight in the row of 激光点 on 红色: the modifier relation is captured."),
    ("④ 复盘:机制是死的,权重是学的 · The mechanism is fixed, the weights are learned",
     "整个过程只有矩阵乘和一个 softmax,而「谁看谁」的智能,全部来自 Q、K 投影矩阵里被训练出来的数字——"
     "机制是死的,权重是学的。",
     "The whole process is matrix multiplications and one softmax; the intelligence of who looks at whom "
     "comes entirely from the trained numbers in Q and K. Try it: swap the K rows of 猫 and 红色 — "
     "nothing in the mechanism changes, yet 追 now looks at 红色 instead of 猫. The pattern follows the "
     "numbers in K."),
)

CHASE, CAT, RED, DOT = 1, 0, 2, 3  # rows of the demo 「猫 追 红色 激光点」
