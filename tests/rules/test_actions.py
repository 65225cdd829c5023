import pytest

from games.rules import (
    ACTION_TYPES,
    Clear,
    Conclude,
    ConfirmDraft,
    Draft,
    Finish,
    Move,
    Place,
    Redo,
    Resign,
    Return,
    Rotate,
    RuleError,
    Swap,
    TakeLast,
    Undo,
    UndoDraft,
    action_from_json,
)

EXAMPLES = [
    (Draft(5), {"type": "draft", "tile_id": 5}),
    (ConfirmDraft(), {"type": "confirm_draft"}),
    (UndoDraft(), {"type": "undo_draft"}),
    (TakeLast(9), {"type": "take_last", "tile_id": 9}),
    (Place(3, 12, 2), {"type": "place", "tile_id": 3, "space": 12, "rotation": 2}),
    (Rotate(4), {"type": "rotate", "space": 4, "quarter_turns": 1}),
    (Move(1, 2), {"type": "move", "from_space": 1, "to_space": 2}),
    (Swap(7, 8), {"type": "swap", "space_a": 7, "space_b": 8}),
    (Return(6), {"type": "return", "space": 6}),
    (Clear(), {"type": "clear"}),
    (Undo(), {"type": "undo"}),
    (Redo(), {"type": "redo"}),
    (Finish(), {"type": "finish"}),
    (Resign(), {"type": "resign"}),
    (Conclude(), {"type": "conclude"}),
]


def test_every_type_has_an_example():
    assert {a.type for a, _ in EXAMPLES} == set(ACTION_TYPES)


@pytest.mark.parametrize(("action", "data"), EXAMPLES)
def test_json_round_trip(action, data):
    assert action.to_json() == data
    assert action_from_json(data) == action
    assert action_from_json(action) is action
    assert hash(action) == hash(action_from_json(data))


def test_defaults_may_be_left_out():
    assert action_from_json({"type": "place", "tile_id": 1, "space": 2}) == Place(1, 2, 0)
    assert action_from_json({"type": "rotate", "space": 2}) == Rotate(2, 1)


def test_only_arranging_actions_are_marked_so():
    assert {a.type for a, _ in EXAMPLES if a.arranging} == {
        "place", "rotate", "move", "swap", "return", "clear", "undo", "redo",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], 'An action must be a JSON object with a "type".'),
        ({"tile_id": 1}, "Unknown action type None"),
        ({"type": "jump"}, "Unknown action type 'jump'"),
        ({"type": "draft"}, "The draft action needs the field 'tile_id'."),
        ({"type": "draft", "tile_id": "3"}, "The field 'tile_id' of draft must be a whole number."),
        ({"type": "draft", "tile_id": True}, "must be a whole number"),
        ({"type": "draft", "tile_id": 1.0}, "must be a whole number"),
        ({"type": "clear", "space": 1}, "Unexpected field(s) for clear: space."),
    ],
)
def test_bad_json(data, message):
    with pytest.raises(RuleError) as exc:
        action_from_json(data)
    assert exc.value.code == "bad_action"
    assert message in exc.value.message
