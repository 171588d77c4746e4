from visual_degrees_tools.text_table import aligned


def test_columns_are_padded_to_their_widest_cell_and_the_last_is_left_as_it_is() -> None:
    rows = [("hunches", "people", "run id"), ("12", "A → B", "r-1"), ("3", "Someone Long → C", "r-22")]
    assert aligned(rows, numeric=1) == [
        "hunches  people            run id",
        "     12  A → B             r-1",
        "      3  Someone Long → C  r-22",
    ]


def test_without_numeric_columns_every_cell_reads_from_the_left() -> None:
    assert aligned([("a", "bb", "x"), ("ccc", "d", "yy")]) == ["a    bb  x", "ccc  d   yy"]
