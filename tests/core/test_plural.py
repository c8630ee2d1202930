from explorer.core.plural import count, noun


def test_one_is_singular_and_the_rest_plural():
    assert count(1, "token") == "1 token"
    assert count(0, "token") == "0 tokens"
    assert count(4096, "token") == "4,096 tokens"
    assert count(1, "key", "keys'") == "1 key"
    assert noun(1, "column") == "column" and noun(3, "column") == "columns"
