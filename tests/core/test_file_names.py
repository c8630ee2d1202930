"""The file name a session is offered under, from its title (written by hand)."""
from explorer.core.file_names import MAX_STEM, file_stem


def test_a_title_keeps_its_words_and_letters():
    assert file_stem("layer 2 head 1 of tiny-induction", "session") == "layer 2 head 1 of tiny-induction"
    assert file_stem("Demo: 猫 追 红色 激光点", "session") == "Demo 猫 追 红色 激光点"


def test_what_file_systems_refuse_becomes_one_space():
    assert file_stem('a/b\\c:d*e?f"g<h>i|j', "x") == "a b c d e f g h i j"
    assert file_stem("tab\there\nnewline", "x") == "tab here newline"
    assert file_stem("  ..hidden  ", "x") == "hidden"  # no leading dot: not a hidden file
    assert file_stem("ends with dots...", "x") == "ends with dots"  # Windows drops them


def test_nothing_left_gives_the_fallback():
    for title in ("", None, "   ", "///", "..."):
        assert file_stem(title, "session") == "session"


def test_a_long_title_is_cut_at_a_word():
    title = "word " * 30  # 150 characters
    stem = file_stem(title, "x")
    assert len(stem) <= MAX_STEM and stem.endswith("word") and stem == " ".join(["word"] * 16)  # 16·5 − 1 = 79
    assert file_stem("x" * 100, "y") == "x" * MAX_STEM  # no space to cut at


def test_a_name_of_wide_characters_stays_within_what_file_systems_take():
    stem = file_stem("😀" * 100, "x")  # 4 bytes each: 80 characters would be 320 bytes, over 255 with ".aesz"
    assert stem == "😀" * 50 and len((stem + ".aesz").encode("utf-8")) == 205
    assert file_stem("猫" * 80, "x") == "猫" * 66  # 3 bytes each: 66 · 3 = 198 ≤ 200 < 67 · 3


def test_a_windows_device_name_is_not_offered_as_it_is():
    assert file_stem("CON", "x") == "CON_" and file_stem("lpt1", "x") == "lpt1_"
    assert file_stem("console", "x") == "console"
