"""The step-through lesson's state: how many of the stages ①②③ are revealed, and the reader's guesses."""
ALL_STAGES = 3  # ① scores, ② weights, ③ output


class LessonState:
    """``revealed`` stages (the explorer shows all; a lesson hides later ones) and ``guesses``:
    stage → (row, col), the cell the reader expects to be darkest before revealing that stage."""

    def __init__(self):
        self.revealed = ALL_STAGES
        self.guesses = {}

    def reset(self):
        """Outside any lesson: every stage shown, no guesses."""
        self.revealed, self.guesses = ALL_STAGES, {}

    def reveal(self, stages):
        """Show ``stages`` stages; hiding one again forgets its guess. True if anything changed."""
        stages = max(0, min(int(stages), ALL_STAGES))
        if stages == self.revealed:
            return False
        if stages < self.revealed:
            self.guesses = {k: v for k, v in self.guesses.items() if k <= stages}
        self.revealed = stages
        return True

    def guess(self, stage, row, col):
        """Record a guess for a stage still hidden. True if it is new."""
        if stage <= self.revealed or self.guesses.get(stage) == (row, col):
            return False
        self.guesses = {**self.guesses, stage: (int(row), int(col))}
        return True

    def forget_guesses(self):
        """After a change of shape a guess may name a cell that is gone. True if there were any."""
        had, self.guesses = bool(self.guesses), {}
        return had
