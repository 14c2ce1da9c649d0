"""The short answers of `/lore` without a language model, on the SRD world: right facts, honest "nothing known".

Imports `../shared/corpora/srd/world/*.md` as Reference (as `bench.lore_quality` does; `--work DIR` reuses its
import) and asks questions as a player, in four sets, each printed as one JSON line:
- `tuning` and `untouched`: the two halves (`bench.lore_quality.split`, by a hash of each id) of the large set of
  `bench.lore_questions` (made from the world's structure, several phrasings, plus the hand-written set). Only
  the tuning half's misses may be read while tuning (`--misses` prints the tuning half's only);
- `project`: the project's first 45 questions (`bench/data/lore_answers.jsonl`);
- `srd_dev_tuning` and `srd_dev_untouched`: the corpus's own questions (`eval/dev.jsonl`), in two halves by the
  same `split`: every one is answerable; the ones with a short `answer` are checked for it (a "no" answer: the
  reply starts with "No"); `subject_named` counts the answers naming the section that answers (its heading, or
  an `alt`'s). The corpus keeps a larger held-out set of the same kind: the untouched half stands in for it
  (its misses are never printed);
- `outsider_a` and `outsider_b`: 120 questions written as players type them by someone who had read the corpus
  but not this code nor the other sets (`bench/data/lore_outsider_a.jsonl`, `..._b.jsonl`, 60 each, split by a
  fixed coin before any result; 45 answerable and 15 unanswerable each). Each answerable one lists acceptable
  wordings of its fact: an answer holding any one is right. A is tuning material (`--misses` prints its misses);
  B is untouched: read only its figures, never its misses;
- `outsider_c`: 60 more questions in the same shape (45 answerable, 15 unanswerable), written later by another
  outsider as a new player and a GM preparing a fight would ask them, over the sections the first sets touch
  least (conditions, equipment tables, class features, magic items, resting and combat rules, monsters'
  actions). Tuning material like A (`--misses` prints its misses);
- `outsider_d`: 60 more in the same shape (45 answerable, 15 unanswerable), written later by another outsider
  who had seen neither this code nor the other sets' misses (`bench/data/lore_outsider_d.jsonl`). Tuning
  material like A and C (`--misses` prints its misses);
- `outsider_e`: 60 more (45 answerable, 15 unanswerable), written by a third outsider who read only the corpus,
  over subjects no other set asks about, in players' forms (typos, slang, yes/no rules, comparisons, paraphrase).
  Untouched like B: its misses are never printed.
- `own`: 57 more (43 answerable, 14 unanswerable, `bench/data/lore_own.jsonl`), written while tuning for B and E
  without reading them, in forms the answer step was not built for (tables of deities, travel and food rules,
  races' ages and sizes, items' weights, conditions, jumps, comparisons, typos, chatter; unanswerable ones name
  things no source holds, some beside words that it does: "boots of haste", "a beholder's antimagic cone").
  Tuning material (`--misses` prints its misses).
- `described`: 44 more (37 answerable, 7 unanswerable, `bench/data/lore_described.jsonl`) in the corpus's own
  "conceptual" form and players' descriptive ones ("which demon grabs people with its two big pincers?",
  "spell that opens a passage through a stone wall", "is there a monster that ..."), about sections no other
  set asks: the answer is the section's subject, named. Written before the answer step read descriptions;
  tuning material.
- `outsider_f`: 60 more (45 answerable, 15 unanswerable), written by a fourth outsider who read only the corpus, as
  players type in Discord (typos, abbreviations, yes/no rules, comparisons, long chatty questions, numbers in words),
  unanswerable ones checked absent from every file of the corpus. Untouched like B and E: its misses are never
  printed.
- `outsider_g`: 60 more (45 answerable, 15 unanswerable), written later by a fifth outsider who read only the corpus,
  over all sixteen files and sections other sets pass by (diseases, crafting, deities' tables, rarely asked items),
  as players type (fragments, chatty context first, a character's situation, comparisons, two-step questions, a
  thing described without its name, typos, numbers in words). Tuning material (`--misses` prints its misses).
- `outsider_h` and `outsider_i`: 120 more (90 answerable, 30 unanswerable), written by a sixth outsider who read only
  the corpus, over all sixteen files, as players and GMs type mid-session (fragments, chatty context, yes/no rules,
  comparisons, two-part questions, things described without their names, typos, abbreviations); split by the same
  hash as the halves before any answer was read: `outsider_h` (66, 51 answerable) is tuning material, `outsider_i`
  (54, 39 answerable) is untouched like B, E and F: its misses are never printed.
- `outsider_j` and `outsider_k`: 120 more (90 answerable, 30 unanswerable), written by a seventh outsider who read
  only the corpus, over all sixteen files, a third as a new player describing what they mean without the game's
  terms, a third as a veteran typing terse lookups with abbreviations and typos, a third as a GM mid-session
  (context first, yes/no rules, comparisons, two-step questions, numbers in words); split by the same hash before
  any answer was read: `outsider_j` (65, 48 answerable) became tuning material after its first measure (`--misses`
  prints its misses), `outsider_k` (55, 42 answerable) is untouched like B, E, F and I.
- `outsider_l` and `outsider_m`: 120 more (90 answerable, 30 unanswerable), written by an eighth outsider who read
  only the corpus, over all sixteen files, favouring single fields of stat blocks and table rows and rules text, a
  third as a new player describing things without their names, a third as a veteran's terse lookups
  (abbreviations, fragments, typos, numbers in words), a third as a GM mid-session (context first, comparisons,
  two-step questions, counts); unanswerable ones checked absent from every file, some beside words the corpus
  holds. Split by the same hash before any answer was read: `outsider_l` (59, 45 answerable) is tuning material
  (`--misses` prints its misses), `outsider_m` (61, 45 answerable) is untouched like B, E, F, I and K.
- `outsider_n` and `outsider_o`: 120 more (90 answerable, 30 unanswerable), written by a ninth outsider who read
  only the corpus, over all sixteen files and the sections a casual reader skips (higher-level class features,
  magic items' details, traps, diseases, pantheons and planes, monsters' traits), as people type at the table:
  roleplay and table talk around the question, scenarios with numbers, negations, nicknames and names from
  other books for a thing the corpus holds, terse lookups, abbreviations, British spellings, numbers in words,
  comparisons, two-step answers; unanswerable ones (things of other books, editions and games, made-up ones)
  checked absent from every file. Split by the same hash before any answer was read: `outsider_n` (59, 40
  answerable) is tuning material (`--misses` prints its misses), `outsider_o` (61, 50 answerable) is untouched
  like B, E, F, I, K and M.
- `outsider_p` and `outsider_q`: 120 more (90 answerable, 30 unanswerable), written by a tenth outsider who read only
  the corpus, over all sixteen files, as players and GMs type them in Discord: the question inside table talk, two
  sentences, a thing named by description ("the big frog monster"), typos and lower-case shorthand, numbers in
  words, questions giving their own number ("i have 14 str ..."), conditions asked by their effect, "does it stack",
  "how long", lists, comparisons, British spellings, a statement with a "?" (some with a wrong number); unanswerable
  ones (things of other books, editions and games, made-up ones, things the text is silent on) checked absent from
  every file. Split by the same kind of hash (sha256 of the id, even or odd) into 60 and 60 before any answer was
  read, 45 answerable and 15 unanswerable each: `outsider_p` is tuning material (`--misses` prints its misses),
  `outsider_q` is untouched like B, E, F, I, K, M and O.
- `outsider_r` and `outsider_s`: 120 more (90 answerable, 30 unanswerable), written by an eleventh outsider who read
  only the corpus, over all sixteen files and the sections others pass by (languages, damage types, pantheons and
  planes, higher-level class features, travel pace, food, falling, suffocating, magic items' details, monsters'
  actions and traits), in forms other sets lean on less: a GM building an encounter or a shop, "what's the
  difference between X and Y" (either fact), the game's word asked by a synonym ("sick from venom", "how heavy",
  "how much to buy"), a rule's number asked in a situation ("my wizard is level 6 ..."), plurals and misspellings,
  one- and two-word lookups, the second person, a wrong premise the text corrects ("fireball is 6d8 right?"), long
  questions of three sentences; unanswerable ones (things of other books, editions and games, made-up abilities of
  real monsters, things the text is silent on such as prices of magic items and level tables) checked absent from
  every file. Split by the same hash (sha256 of the id, even or odd) before any answer was read: `outsider_r` (65,
  48 answerable) is tuning material (`--misses` prints its misses), `outsider_s` (55, 42 answerable) is untouched
  like B, E, F, I, K, M, O and Q.

Each line holds, for the answer step as it is (`now`) and for the first answer step (`baseline`: the graph or
the best passages' sentences, on the same search) measured in the same run: the share of answers holding their
fact, the share naming their subject, the share of unanswerable questions answered "nothing known", the share of
answerable ones wrongly answered "nothing known", and the answer latency (retrieval and answer, no language
model) p50 / p95, wall-clock (`latency_ms_*`) and the CPU time the process spent on it (`cpu_ms_*`, every
thread's: the embedding and the database's too; unlike the wall clock, it does not grow when other work shares
the machine's cores). The questions are asked as the bot answers them: after a first question, with what start-up
loaded frozen out of the garbage collector's sight (`bot.client.client.freeze_startup_heap`).

    .venv/bin/python -m bench.lore_answers [--work DIR] [--misses]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import json
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.lore_quality import SRD, open_corpus, split
from bench.lore_questions import question_set
from canon import offload
from canon.models import Viewer
from memory.embedding import MiniLMEmbedder
from memory.knowledge.answer_models import ShortAnswer
from memory.knowledge.retrieval import preset
from memory.knowledge.retrieval.answer import compose

QUESTIONS = Path(__file__).resolve().parent / "data" / "lore_answers.jsonl"
OUTSIDER = {
    "outsider_a": Path(__file__).resolve().parent / "data" / "lore_outsider_a.jsonl",
    "outsider_b": Path(__file__).resolve().parent / "data" / "lore_outsider_b.jsonl",
    "outsider_c": Path(__file__).resolve().parent / "data" / "lore_outsider_c.jsonl",
    "outsider_d": Path(__file__).resolve().parent / "data" / "lore_outsider_d.jsonl",
    "outsider_e": Path(__file__).resolve().parent / "data" / "lore_outsider_e.jsonl",
    "own": Path(__file__).resolve().parent / "data" / "lore_own.jsonl",
    "described": Path(__file__).resolve().parent / "data" / "lore_described.jsonl",
    "outsider_f": Path(__file__).resolve().parent / "data" / "lore_outsider_f.jsonl",
    "outsider_g": Path(__file__).resolve().parent / "data" / "lore_outsider_g.jsonl",
    "outsider_h": Path(__file__).resolve().parent / "data" / "lore_outsider_h.jsonl",
    "outsider_i": Path(__file__).resolve().parent / "data" / "lore_outsider_i.jsonl",
    "outsider_j": Path(__file__).resolve().parent / "data" / "lore_outsider_j.jsonl",
    "outsider_k": Path(__file__).resolve().parent / "data" / "lore_outsider_k.jsonl",
    "outsider_l": Path(__file__).resolve().parent / "data" / "lore_outsider_l.jsonl",
    "outsider_m": Path(__file__).resolve().parent / "data" / "lore_outsider_m.jsonl",
    "outsider_n": Path(__file__).resolve().parent / "data" / "lore_outsider_n.jsonl",
    "outsider_o": Path(__file__).resolve().parent / "data" / "lore_outsider_o.jsonl",
    "outsider_p": Path(__file__).resolve().parent / "data" / "lore_outsider_p.jsonl",
    "outsider_q": Path(__file__).resolve().parent / "data" / "lore_outsider_q.jsonl",
    "outsider_r": Path(__file__).resolve().parent / "data" / "lore_outsider_r.jsonl",
    "outsider_s": Path(__file__).resolve().parent / "data" / "lore_outsider_s.jsonl",
}
UNTOUCHED = (
    "untouched",
    "outsider_b",
    "outsider_e",
    "outsider_f",
    "outsider_i",
    "outsider_k",
    "outsider_m",
    "outsider_o",
    "outsider_q",
    "outsider_s",
    "srd_dev_untouched",
)


def percentile(values: Sequence[float], share: float) -> float:
    """Return the value below which `share` of the values fall (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))] if ordered else 0.0


def holds(text: str, facts: Sequence[str]) -> bool:
    """Return whether an answer holds every string of its fact (case ignored); a bare number only as a whole
    number ("15" is not in "150" nor in "1d15"), and never as a citation's ("[1]")."""
    folded = text.casefold()
    bare = re.sub(r"\[\d+\]", " ", folded)
    return all(
        re.search(rf"(?<![\w.]){re.escape(f.strip())}(?!\d|\.\d)", bare)
        if f.strip().isdigit()
        else f.casefold() in folded
        for f in facts
    )


def dev_facts(q: dict[str, Any]) -> list[str] | None:
    """Return the strings a right answer to one of the corpus's own questions holds (None: not checked)."""
    answer = q.get("answer")
    if not answer or len(answer) > 60:
        return None
    return [p.strip() for p in answer.split(";") if p.strip()]


def dev_question(row: dict[str, Any]) -> dict[str, Any]:
    """Return one of the corpus's own questions with the headings that answer it as its subjects."""
    subjects = [row["heading"], *(alt["heading"] for alt in row.get("alt") or [])]
    return {**row, "subject": row["heading"], "subjects": subjects}


def outsider_questions(path: Path) -> list[dict[str, Any]]:
    """Return an outsider set's questions (`{id, question, answers}`; no answers: unanswerable)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        {
            "id": r["id"],
            "q": r["question"],
            "fact": r["answers"],
            "unanswerable": not r["answers"],
            "alternatives": True,
        }
        for r in rows
    ]


def right(reply: ShortAnswer, facts: Sequence[str]) -> bool:
    if [f.casefold() for f in facts] in (["no"], ["yes"]):
        return reply.text.casefold().startswith(facts[0].casefold())
    return holds(reply.text, facts)


class Tally:
    """The counts of one answer step on one set of questions."""

    def __init__(self) -> None:
        self.answerable = self.unanswerable = self.checked = 0
        self.right = self.named = self.unknown_right = self.unknown_wrong = 0
        self.timings: list[float] = []
        self.cpu: list[float] = []
        self.misses: list[dict[str, Any]] = []
        self.digest = hashlib.sha256()

    def add(
        self,
        q: dict[str, Any],
        facts: Sequence[str] | None,
        reply: ShortAnswer,
        ms: float,
        cpu_ms: float = 0.0,
    ) -> None:
        self.timings.append(ms)
        self.cpu.append(cpu_ms)
        self.digest.update(answer_digest_line(reply))
        if q.get("unanswerable"):
            self.unanswerable += 1
            self.unknown_right += not reply.known
            if reply.known:
                self.misses.append({"id": q.get("id"), "q": q["q"], "answer": reply.text})
            return
        self.answerable += 1
        self.unknown_wrong += not reply.known
        named = False
        if q.get("subject"):
            subjects = q.get("subjects") or [q["subject"].split(",")[0]]
            named = reply.known and any(s.casefold() in reply.text.casefold() for s in subjects)
            self.named += named
        if facts is None and q.get("subjects") and not named:
            self.misses.append({"id": q.get("id"), "q": q["q"], "want": q["subjects"], "answer": reply.text})
        if facts is not None:
            self.checked += 1
            if q.get("alternatives"):
                ok = reply.known and any(holds(reply.text, [fact]) for fact in facts)
            else:
                ok = reply.known and right(reply, facts)
            self.right += ok
            if not ok:
                self.misses.append({"id": q.get("id"), "q": q["q"], "want": facts, "answer": reply.text})

    def report(self) -> dict[str, Any]:
        with_subject = max(1, self.answerable)
        return {
            "fact_in_answer": round(self.right / (self.checked or 1), 3),
            "subject_named": round(self.named / with_subject, 3),
            "nothing_known_when_unanswerable": round(self.unknown_right / (self.unanswerable or 1), 3),
            "nothing_known_when_answerable": round(self.unknown_wrong / (self.answerable or 1), 3),
            "latency_ms_p50": round(percentile(self.timings, 0.5), 1),
            "latency_ms_p95": round(percentile(self.timings, 0.95), 1),
            "cpu_ms_p50": round(percentile(self.cpu, 0.5), 1),
            "cpu_ms_p95": round(percentile(self.cpu, 0.95), 1),
        }


def answer_digest_line(reply: ShortAnswer) -> bytes:
    """Return one answer as the bytes a set's digest takes in: its text, mode, known flag and citations."""
    return reply.model_dump_json().encode() + b"\n"


def _spent(started: float, cpu: float) -> tuple[float, float]:
    """Return the milliseconds since `started` (wall clock) and `cpu` (the process's CPU time, every thread's)."""
    return (time.perf_counter() - started) * 1000, (time.process_time() - cpu) * 1000


async def measure(
    service: Any, campaign_id: int, questions: list[dict[str, Any]], facts_of: Any
) -> dict[str, Tally]:
    """Ask every question with the answer step as it is and with the baseline; return both tallies."""
    now, baseline = Tally(), Tally()
    base_config = preset("default")
    for q in questions:
        facts = facts_of(q)
        started, cpu = time.perf_counter(), time.process_time()
        answer = await service.ask(campaign_id, q["q"], viewer=Viewer.PLAYER, record=False)
        now.add(q, facts, answer.reply, *_spent(started, cpu))
        started, cpu = time.perf_counter(), time.process_time()
        found = await service.retriever.search(
            campaign_id, q["q"], viewer=Viewer.PLAYER, limit=5, config=base_config
        )
        reply = compose(q["q"], found.canon_facts, found.results)
        baseline.add(q, facts, reply, *_spent(started, cpu))
    return {"now": now, "baseline": baseline}


async def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--work", type=Path, default=None, help="keep (and reuse) the imported world here")
    parser.add_argument(
        "--misses", action="store_true", help="print the tuning half's wrong answers (stderr)"
    )
    parser.add_argument(
        "--digest",
        action="store_true",
        help="add each set's sha256 over its ordered answers (text, mode, citations): equal before and after a "
        "change that must not change any answer",
    )
    parser.add_argument(
        "--only",
        default=None,
        help="run some sets, comma-separated: tuning, untouched, project, srd_dev_tuning, srd_dev_untouched, "
        "outsider_a, outsider_b, outsider_c, outsider_d, outsider_e, own, described, outsider_f, outsider_g, outsider_h, outsider_i, outsider_j, outsider_k, outsider_l, outsider_m, outsider_n, outsider_o, "
        "outsider_p, outsider_q, outsider_r, outsider_s",
    )
    args = parser.parse_args(argv)
    if not (SRD / "world").is_dir():
        print(json.dumps({"skipped": f"SRD corpus not found at {SRD}"}))
        return []
    halves = split(question_set(SRD / "world"))
    sets: dict[str, tuple[list[dict[str, Any]], Any]] = {
        "tuning": (halves["tuning"], lambda q: q.get("fact")),
        "untouched": (halves["untouched"], lambda q: q.get("fact")),
        "project": (
            [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line],
            lambda q: q.get("fact"),
        ),
    }
    dev = SRD / "eval" / "dev.jsonl"
    if dev.is_file():
        dev_halves = split([dev_question(json.loads(line)) for line in dev.read_text().splitlines() if line])
        for half, questions in dev_halves.items():
            sets[f"srd_dev_{half}"] = (questions, dev_facts)
    for name, path in OUTSIDER.items():
        sets[name] = (outsider_questions(path), lambda q: q.get("fact"))
    temporary = tempfile.TemporaryDirectory() if args.work is None else None
    work = Path(temporary.name) if temporary else args.work
    reports: list[dict[str, Any]] = []
    try:
        world = sorted((SRD / "world").glob("*.md"))
        service, db, campaign_id, seconds = await open_corpus(
            work / "world", "SRD world", [(p, p.name) for p in world], MiniLMEmbedder()
        )
        await service.ask(campaign_id, "warm up", viewer=Viewer.PLAYER, record=False)
        # As the bot does once started (`bot.client.client.freeze_startup_heap`): what start-up loaded (the model,
        # chromadb) is out of the collector's sight, and a full collection no longer stalls one answer.
        gc.collect()
        gc.freeze()
        for name, (questions, facts_of) in sets.items():
            if args.only and name not in args.only.split(","):
                continue
            tallies = await measure(service, campaign_id, questions, facts_of)
            now = tallies["now"]
            report: dict[str, Any] = {
                "bench": "lore_answers",
                "set": name,
                "answerable": now.answerable,
                "checked": now.checked,
                "unanswerable": now.unanswerable,
                "now": now.report(),
                "baseline": tallies["baseline"].report(),
                "import_s": seconds,
            }
            if args.digest:
                report["digest"] = now.digest.hexdigest()[:16]
                report["baseline_digest"] = tallies["baseline"].digest.hexdigest()[:16]
            reports.append(report)
            print(json.dumps(report, ensure_ascii=False), flush=True)
            if args.misses and name not in UNTOUCHED:
                for miss in now.misses:
                    print(json.dumps({"set": name, **miss}, ensure_ascii=False), file=sys.stderr)
        await db.dispose()
    finally:
        offload.shutdown()  # a worker pool left to the interpreter's exit fails noisily in its weakref callback
        if temporary is not None:
            temporary.cleanup()
    return reports


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
