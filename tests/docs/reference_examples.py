#!/usr/bin/env python3
"""Runs the worked examples of docs/reference.md and checks what they claim.

Usage: reference_examples.py BINARY MARKDOWN

The conventions (docs/reference.md §8 describes them for writers):

* A fenced block whose info string carries `file=NAME` is a file: its text is
  written to NAME in a fresh temporary directory when the block is reached.
  ```d2c file=NAME.d2c``` is a model. A `d2c` block without `file=` must say
  `fragment` (```d2c fragment```): it is an excerpt that is not run.
  Names are plain file names, each defined once.
* A ```console``` block holds commands. A command is a line `$ ddsmc ARGS...`
  (split like a POSIX shell word list, no pipes or redirections; `ddsmc` is
  replaced by BINARY, the working directory is the temporary directory, the
  environment is passed through, DDSMC_CACHE_DIR included). The lines after
  it are expected output: each must match a whole line of the command's
  output, in order, standard output and standard error each keeping their
  own order (as a terminal interleaves them); lines of output may be left
  out. In an expected line `...` stands for any text; a line that is only
  `...` marks left-out lines and is skipped, and so are blank lines. The
  last line of every command is `[exit N]`, its exact exit code.
* A ```json check=NAME``` block is compared with the JSON file NAME that an
  earlier command wrote: every key it shows must be there with a matching
  value (objects may have more keys), arrays have the length shown unless
  their last element is "...", and the string "..." matches any value.
* A command's input files must exist when it runs: every `.d2c` argument is
  a file block of the document, every other positional argument (a trace)
  and a `--network` value without `:` (an edge-list file) was written by a
  block or an earlier command. Every model block is used by some command.

Every mismatch is reported with the document's line number and the actual
output. Exit 0 when every example passes, 1 otherwise (also when the
document has no command at all), 2 on a bad command line.
"""

import functools
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

TIMEOUT_SECONDS = 60
# ddsmc options that take no value; every other option takes one.
FLAGS = {"-h", "--help", "--version", "--show-witnesses"}
SHELL_TOKENS = {"|", "||", ">", ">>", "<", "2>", "2>&1", "&", "&&", ";"}
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]*$")


class Problems:
    def __init__(self, doc):
        self.doc = doc
        self.items = []

    def add(self, line, message):
        self.items.append(f"{self.doc}:{line}: {message}")
        print(self.items[-1], flush=True)


# ---------------------------------------------------------------- parsing


class FileBlock:
    def __init__(self, line, name, text, lang):
        self.line, self.name, self.text, self.lang = line, name, text, lang


class JsonCheck:
    def __init__(self, line, name, text):
        self.line, self.name, self.text = line, name, text


class Command:
    def __init__(self, line, text):
        self.line, self.text = line, text
        self.expected = []  # (line number, text)
        self.exit = None


def fenced_blocks(lines):
    """(first content line number, info string, content lines) per fenced block."""
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or (m.group("fence")[0] == "`" and "`" in m.group("info")):
            i += 1
            continue
        fence, info = m.group("fence"), m.group("info").strip()
        start, j = i + 1, i + 1
        while j < len(lines):
            c = FENCE.match(lines[j])
            if c and c.group("fence")[0] == fence[0] and len(c.group("fence")) >= len(fence) and not c.group("info").strip():
                break
            j += 1
        blocks.append((start + 1, info, lines[start:j]))
        i = j + 1
    return blocks


def parse_document(path, problems):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    items, defined = [], set()
    for first, info, content in fenced_blocks(lines):
        try:
            words = shlex.split(info)
        except ValueError as e:
            problems.add(first - 1, f"cannot read the info string {info!r}: {e}")
            continue
        lang = words[0] if words else ""
        attrs = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        flags = {w for w in words[1:] if "=" not in w}
        if "file" in attrs:
            name = attrs["file"]
            if not NAME.match(name):
                problems.add(first - 1, f"file={name!r}: a file block's name is a plain file name")
            elif name in defined:
                problems.add(first - 1, f"file={name} is defined twice")
            else:
                defined.add(name)
                items.append(FileBlock(first, name, "\n".join(content) + "\n", lang))
        elif lang == "d2c" and "fragment" not in flags:
            problems.add(first - 1, "a d2c block needs file=NAME.d2c (run by the examples) or the word fragment")
        elif lang == "json" and "check" in attrs:
            items.append(JsonCheck(first, attrs["check"], "\n".join(content)))
        elif lang == "console":
            items.extend(parse_console(first, content, problems))
    return items


def parse_console(first, content, problems):
    commands, current = [], None
    for k, text in enumerate(content):
        n = first + k
        if text.startswith("$ "):
            if current and current.exit is None:
                problems.add(current.line, "the command has no [exit N] line")
            if not (text[2:].strip() + " ").startswith("ddsmc "):
                problems.add(n, f"a command must run ddsmc: {text}")
                current = None
                continue
            current = Command(n, text[2:].strip())
            commands.append(current)
            continue
        if not text.strip():
            continue
        if current is None:
            problems.add(n, f"output before any `$ ddsmc` command: {text}")
            continue
        m = re.fullmatch(r"\[exit (\d+)\]", text.strip())
        if current.exit is not None:
            problems.add(n, f"text after the command's [exit {current.exit}] line: {text}")
        elif m:
            current.exit = int(m.group(1))
        else:
            current.expected.append((n, text))
    if current and current.exit is None:
        problems.add(current.line, "the command has no [exit N] line")
    return commands


# ---------------------------------------------------------------- matching


def line_pattern(expected):
    return re.compile(".*".join(re.escape(p) for p in expected.rstrip().split("...")), re.DOTALL)


def match_output(expected, out_lines, err_lines):
    """How many expected lines match, in order, as an interleaving of a
    subsequence of out_lines and one of err_lines (all of them: len)."""
    patterns = [line_pattern(t) for _, t in expected]

    def next_match(lines, start, pattern):
        for k in range(start, len(lines)):
            if pattern.fullmatch(lines[k].rstrip()):
                return k
        return None

    @functools.lru_cache(maxsize=None)
    def best(i, j, k):
        if i == len(patterns):
            return i
        result = i
        for lines, pos, which in ((out_lines, j, 0), (err_lines, k, 1)):
            at = next_match(lines, pos, patterns[i])
            if at is None:
                continue
            result = max(result, best(i + 1, at + 1, k) if which == 0 else best(i + 1, j, at + 1))
            if result == len(patterns):
                break
        return result

    return best(0, 0, 0)


def json_matches(expected, actual, where, errors):
    if expected == "...":
        return
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            errors.append(f"{where}: expected an object, found {json.dumps(actual)[:200]}")
            return
        for key, value in expected.items():
            if key not in actual:
                errors.append(f"{where}: no key {key!r} (keys: {', '.join(sorted(actual))})")
            else:
                json_matches(value, actual[key], f"{where}.{key}", errors)
    elif isinstance(expected, list):
        if not isinstance(actual, list):
            errors.append(f"{where}: expected an array, found {json.dumps(actual)[:200]}")
            return
        open_ended = bool(expected) and expected[-1] == "..."
        items = expected[:-1] if open_ended else expected
        if len(actual) < len(items) or (not open_ended and len(actual) != len(items)):
            errors.append(f"{where}: expected {len(items)}{' or more' if open_ended else ''} elements, found {len(actual)}")
            return
        for n, value in enumerate(items):
            json_matches(value, actual[n], f"{where}[{n}]", errors)
    elif type(expected) is not type(actual) or expected != actual:
        # (type too: 1 is not true, 1 is not 1.0)
        errors.append(f"{where}: expected {json.dumps(expected)}, found {json.dumps(actual)[:200]}")


# ---------------------------------------------------------------- running


def input_files(args):
    """The files a ddsmc command line reads: positional arguments after the
    subcommand, and a --network value that is not a generator."""
    files, k, subcommand = [], 0, None
    while k < len(args):
        a = args[k]
        if a.startswith("-") and a != "-":
            name, has_value, value = a.partition("=")
            if name == "--network":
                value = value if has_value else (args[k + 1] if k + 1 < len(args) else "")
                if ":" not in value:
                    files.append(value)
            if name not in FLAGS and not has_value:
                k += 1
        elif subcommand is None:
            subcommand = a
        else:
            files.append(a)
        k += 1
    return files


def indent(text):
    text = text.rstrip("\n")
    return "\n".join("    | " + line for line in text.split("\n")) if text else "    (nothing)"


def run_command(cmd, binary, workdir, defined, problems):
    try:
        words = shlex.split(cmd.text)
    except ValueError as e:
        problems.add(cmd.line, f"cannot split the command: {e}")
        return 0.0
    if any(w in SHELL_TOKENS for w in words):
        problems.add(cmd.line, f"no pipes or redirections in a command: {cmd.text}")
        return 0.0
    args = words[1:]
    ok = True
    names = [a for a in args if a.endswith(".d2c")] + input_files(args)
    for name in sorted(set(names), key=names.index):
        if name.endswith(".d2c") and name not in defined:
            problems.add(cmd.line, f"{name}: no ```d2c file={name}``` block defines this model before the command")
            ok = False
        elif not os.path.exists(os.path.join(workdir, name)):
            problems.add(cmd.line, f"{name}: no file block or earlier command made this file")
            ok = False
    if not ok:
        return 0.0
    started = time.monotonic()
    try:
        r = subprocess.run([binary] + args, cwd=workdir, env=os.environ.copy(), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        problems.add(cmd.line, f"`{cmd.text}` did not finish within {TIMEOUT_SECONDS} s")
        return float(TIMEOUT_SECONDS)
    seconds = time.monotonic() - started
    out = r.stdout.decode("utf-8", "replace")
    err = r.stderr.decode("utf-8", "replace")
    expected = [(n, t) for n, t in cmd.expected if t.strip() != "..."]
    matched = match_output(expected, tuple(out.split("\n")), tuple(err.split("\n")))
    wrong = []
    if matched < len(expected):
        n, t = expected[matched]
        wrong.append(f"line {n}: expected output line not found (after the {matched} before it): {t.rstrip()}")
    if cmd.exit is not None and r.returncode != cmd.exit:
        wrong.append(f"exit code {r.returncode}, the document says [exit {cmd.exit}]")
    if wrong:
        problems.add(cmd.line, f"`{cmd.text}`:\n  " + "\n  ".join(wrong) +
                     f"\n  standard output:\n{indent(out)}\n  standard error:\n{indent(err)}")
    return seconds


def check_json(check, workdir, problems):
    path = os.path.join(workdir, check.name)
    try:
        expected = json.loads(check.text)
    except ValueError as e:
        problems.add(check.line, f"the json check block is not JSON: {e}")
        return
    try:
        with open(path, encoding="utf-8") as f:
            actual = json.load(f)
    except (OSError, ValueError) as e:
        problems.add(check.line, f"{check.name}: cannot read it as JSON (did an earlier command write it?): {e}")
        return
    errors = []
    json_matches(expected, actual, check.name, errors)
    if errors:
        problems.add(check.line, f"{check.name} does not match the block:\n  " + "\n  ".join(errors[:20]))


def main(argv):
    if len(argv) != 3:
        print("usage: reference_examples.py BINARY MARKDOWN", file=sys.stderr)
        return 2
    binary, doc = os.path.abspath(argv[1]), argv[2]
    if not os.access(binary, os.X_OK):
        print(f"reference_examples.py: {binary}: not an executable", file=sys.stderr)
        return 2
    problems = Problems(doc)
    items = parse_document(doc, problems)
    commands = [i for i in items if isinstance(i, Command)]
    models = [i for i in items if isinstance(i, FileBlock) and i.name.endswith(".d2c")]
    checks = [i for i in items if isinstance(i, JsonCheck)]
    if not commands:
        problems.add(1, "the document has no `$ ddsmc` command in a console block: nothing is checked")
    for m in models:
        if not any(re.search(r"(^|\s)" + re.escape(m.name) + r"(\s|$)", c.text) for c in commands):
            problems.add(m.line - 1, f"no command runs {m.name}: its text is not checked")

    slowest, total = (0.0, None), 0.0
    with tempfile.TemporaryDirectory(prefix="ddsmc-reference-") as workdir:
        defined = set()
        for item in items:
            if isinstance(item, FileBlock):
                with open(os.path.join(workdir, item.name), "w", encoding="utf-8") as f:
                    f.write(item.text)
                defined.add(item.name)
            elif isinstance(item, Command):
                seconds = run_command(item, binary, workdir, defined, problems)
                total += seconds
                if seconds > slowest[0]:
                    slowest = (seconds, item)
            else:
                check_json(item, workdir, problems)

    summary = (f"{doc}: {len(models)} models, {len(commands)} commands, {len(checks)} JSON checks, "
               f"{total:.1f} s")
    if slowest[1]:
        summary += f" (slowest {slowest[0]:.2f} s, line {slowest[1].line}: {slowest[1].text})"
    if problems.items:
        print(f"{summary}: {len(problems.items)} problem{'s' if len(problems.items) != 1 else ''}")
        return 1
    print(f"{summary}: all pass")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
