#!/usr/bin/env python3
"""Generates tests/unit/test_chat_jinja.c, _jinja2.c and _jinja3.c: template
cases whose expected output is what Python jinja2 renders when it is set up
the way transformers' apply_chat_template sets it up
(ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True),
loopcontrols, transformers' AssistantTracker (the generation tag), tojson =
json.dumps(ensure_ascii=False), raise_exception). A case jinja2 rejects
becomes an error case. Needs jinja2 (checked with 3.1.6):
    python3 tests/unit/gen_chat_jinja.py 1 | clang-format --assume-filename=t.c \
        > tests/unit/test_chat_jinja.c
    python3 tests/unit/gen_chat_jinja.py 2 | clang-format --assume-filename=t.c \
        > tests/unit/test_chat_jinja2.c
    python3 tests/unit/gen_chat_jinja.py 3 | clang-format --assume-filename=t.c \
        > tests/unit/test_chat_jinja3.c
"""
import json
import random
import sys

import jinja2
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment


def raise_exception(m):
    raise jinja2.exceptions.TemplateError(m)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys)


class AssistantTracker(Extension):
    # transformers' {% generation %} tag; it only marks the assistant text
    tags = {'generation'}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(['name:endgeneration'], drop_needle=True)
        call = self.call_method('_generation_support')
        return jinja2.nodes.CallBlock(call, [], [], body).set_lineno(lineno)

    @jinja2.pass_eval_context
    def _generation_support(self, context, caller):
        return caller()


env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                   extensions=[AssistantTracker, loopcontrols])
env.filters['tojson'] = tojson
env.globals['raise_exception'] = raise_exception

# ---- cases: (template) rendered with the group's variables ----
V_MISC = {'x': [1, 2, 3], 'd': {'a': 1, 'b': [1, {'c': None}], 'items': 5}, 's': 'Hello World', 'n': None, 'e': '', 'f': 1.5, 'u': 'ünï çödé', 'msgs': [{'role': 'user', 'content': 'hi'}, {'role': 'assistant', 'content': 'yo'}]}
CASES_MISC = [
 # block set and filter blocks have their own scope; break leaves them
 '{% set b %}{% set c = 1 %}x{% endset %}{{ c }}|{{ b }}', '{% filter upper %}{% set c = 1 %}x{% endfilter %}{{ c }}',
 '{% set a = 1 %}{% set b %}{{ a }}{% set a = 2 %}{{ a }}{% endset %}{{ a }}{{ b }}',
 '{% set ns = namespace(v=0) %}{% set b %}{% set ns.v = 3 %}{% endset %}{{ ns.v }}',
 '{% for i in x %}{% set b %}{{ i }}{% if i == 2 %}{% break %}{% endif %}{% endset %}{{ b }}{% endfor %}',
 '{% for i in x %}{% filter upper %}a{{ i }}{% if i == 2 %}{% continue %}{% endif %}{% endfilter %}{% endfor %}',
 '{% macro m() %}{% set c = 1 %}{% endmacro %}{% call m() %}{% set d = 1 %}{% endcall %}{{ d }}',
 # filters that return generators: always true, consumed by iteration
 "{% if []|select %}T{% endif %}{% set g = x|select('odd') %}{{ g|first }}{{ g|list }}{{ g|list }}",
 '{% set g = x|select %}{{ 1 in g }}{{ g|list }}{{ x|select is sequence }}{{ x|select is iterable }}',
 '{{ x|select|last }}', '{{ x|select|length }}', '{{ x|select|tojson }}', '{{ (x|select)[0] }}|{{ x|select|reverse }}',
 '{{ d.items() }}{{ d.keys() }}{{ d.values() }}{{ d.items()|length }}{{ d.keys()|list }}', '{{ d.items()|tojson }}',
 '{{ d.keys()[0] }}|', '{{ x|reverse|last }}', "{{ f[1:] }}", "{{ d[1:] }}", "{{ n[:-1] }}", "{{ 1.5|truncate(2) }}",
 "{{ x|truncate(9) }}", "{{ 5|indent }}", "{{ zz|indent }}", "{{ zz|int }}", "{{ zz|float }}", "{{ '' % [1, 2] }}",
 "{{ 'ß straße ﬁx'|title }} {{ 'ß'|capitalize }} {{ 'ßa'.title() }}",
 # transformers' generation tag: a call block, so its own scope
 '{% for m in msgs %}{% generation %}[{{ m.content }}]{% set z = 1 %}{% endgeneration %}{{ z }}{% endfor %}',
 '  {% generation %}\n  a\n  {% endgeneration %}\n  b', '{%- generation -%} x {%- endgeneration -%}',
 '{% for i in x %}{% generation %}{% break %}{% endgeneration %}{% endfor %}', '{% generation %}x',
 # whitespace control
 'a  {% if true %}\n  b\n  {% endif %}\n c',
 '  {% if true %}x{% endif %}  ',
 'a\n  {%- if true %} b {% endif -%}  \n c',
 'a\n  {%+ if true %}b{% endif %}\nc',
 'a {%+ if true +%}\nb{% endif %}',
 '{% if true %}\nx\n{% endif %}\n',
 '{% if true %}\r\nx\r\n{% endif %}\r\n',
 'x\n\n',
 'x\n',
 '  {# comment #}\n  y',
 '  {#- comment -#}  \n  y',
 'a {#+ c +#}\nb',
 '{{ 1 }}\n  {{ 2 }}\n',
 '  {{- 1 -}}  \n  {{ 2 }}',
 '{% raw %}{{ x }}{% endraw %}',
 '  {% raw %}\n  {{ x }}\n  {% endraw %}\n  y',
 '{%- raw -%}  a  {%- endraw -%}  b',
 '{{-1}}',
 'a\t{% if true %}b{% endif %}',
 'a\n\t {% if true %}b{% endif %}',
 '{% for i in x %}\n  {{ i }}\n{% endfor %}',
 '{% for i in x -%}\n  {{ i }}\n{%- endfor %}',
 '{% macro m(a) %}\n  [{{ a }}]\n{% endmacro %}\n{{ m(1) }}{{ m(2) }}',
 'x {%- if true %}\u00a0 y{% endif %}',
 '\u3000{% if true %}z{% endif %}',
 # expressions
 '{{ 1 + 2 * 3 }} {{ (1 + 2) * 3 }} {{ 2 ** 3 ** 2 }} {{ -2 ** 2 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 7 / 2 }}',
 '{{ 1.5 + 1 }} {{ 0.1 + 0.2 }} {{ 1e3 }} {{ 1_000 }} {{ 0x1F }} {{ 0o17 }} {{ 0b101 }} {{ 1.0 }} {{ 3.0 * 2 }}',
 '{{ "a" ~ 1 ~ none ~ true }} {{ "a" + "b" }} {{ [1] + [2] }} {{ "ab" * 3 }} {{ 2 * "ab" }}',
 '{{ 1 < 2 < 3 }} {{ 1 < 3 < 2 }} {{ 1 == 1.0 }} {{ "a" < "b" }} {{ [1,2] < [1,3] }} {{ 1 != 2 }}',
 '{{ "a" in "cat" }} {{ 1 in x }} {{ 5 not in x }} {{ "a" in d }} {{ "z" not in d }}',
 '{{ true and "x" }} {{ false or "y" }} {{ none or 0 }} {{ not 1 }} {{ not not "a" }}',
 '{{ "y" if true else "n" }} {{ "y" if false else "n" }} [{{ "y" if false }}]',
 '{{ x[0] }} {{ x[-1] }} {{ x[1:] }} {{ x[:-1] }} {{ x[::-1] }} {{ x[::2] }} {{ x[5] }}|',
 '{{ s[0] }} {{ s[-5:] }} {{ s[::-1] }} {{ u[1:4] }} {{ u[::-2] }}',
 '{{ d.a }} {{ d["b"][1].c }} {{ d.items }}|{{ d["items"] }} {{ d.zz }}|',
 '{{ x.0 }} {{ d.b.1.c }}',
 '{{ [1, "a", none, true, 1.5, [2], {"k": "v"}] }} {{ (1,) }} {{ (1, 2) }} {{ () }}',
 '{{ {"a": 1, "b": 2} }} {{ {} }} {{ {1: 2, (1,2): 3} }}',
 '{{ "it\'s" }} {{ \'say "hi"\' }} {{ "\\n\\t\\\\" }} {{ "\\x41\\u00e9\\U0001F600" }} {{ "\\101" }} {{ "\\d" }}',
 '{{ ["it\'s", "q\\"", "\\n", "\\x01", "é", "\u200b", "\U0001F600"] }}',
 '{{ "a" "b" \'c\' }}',
 '{{ 1, 2 }}',
 '{{ none }} {{ true }} {{ True }} {{ None }} {{ false }}',
 '{{ undefined_var }}|{{ undefined_var is defined }}|{{ undefined_var is undefined }}',
 '{{ n.attr }}|{{ n["k"] }}|',
 '{{ d.a.b }}|',
 '{{ foo.bar }}',
 '{{ foo["bar"] }}',
 '{{ foo + 1 }}',
 '{{ foo() }}',
 '{{ -foo }}',
 '{{ foo < 1 }}',
 '{{ foo ~ "x" }}{{ foo|length }}{{ foo|default("dd") }}{{ foo|trim }}{{ foo|upper }}',
 '{% for a in foo %}x{% else %}empty{% endfor %}',
 '{{ 1 / 0 }}', '{{ 1 // 0 }}', '{{ 1 % 0 }}', '{{ 1.0 / 0 }}',
 '{{ "a" + 1 }}', '{{ 1 + "a" }}', '{{ [1] + "a" }}', '{{ none + 1 }}', '{{ {} + {} }}',
 '{{ "a" < 1 }}', '{{ 1 in "abc" }}', '{{ "a" in 5 }}', '{{ "a" in none }}',
 '{{ x.append(4) }}', '{{ x.append }}|', '{{ d.update({}) }}', '{{ d.pop("a") }}',
 # statements
 '{% set a = 1 %}{% set b, c = 2, 3 %}{{ a }}{{ b }}{{ c }}',
 '{% set a %}block {{ 1 }}{% endset %}[{{ a }}]',
 '{% set a | upper %}block{% endset %}[{{ a }}]',
 '{% set ns = namespace(a=1, b="x") %}{% set ns.a = ns.a + 1 %}{{ ns.a }}{{ ns.b }}{{ ns.c }}|{{ ns }}',
 '{% set ns = namespace() %}{% for i in x %}{% set ns.t = i %}{% endfor %}{{ ns.t }}',
 '{% set t = 0 %}{% for i in x %}{% set t = t + i %}{% endfor %}{{ t }}',
 '{% set a = 1 %}{% set a.b = 2 %}',
 '{% for i in x %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ loop.depth }};{% endfor %}',
 '{% for i in x %}{{ loop.previtem }}-{{ loop.nextitem }};{% endfor %}',
 '{% for i in x %}{{ loop.cycle("a", "b") }}{% endfor %}',
 '{% for i in [1,1,2,2,1] %}{{ loop.changed(i) }} {% endfor %}',
 '{% for i in x if i > 1 %}{{ i }}{{ loop.index }}{{ loop.length }};{% endfor %}',
 '{% for i in [] %}x{% else %}none{% endfor %}',
 '{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}',
 '{% for k in d %}{{ k }};{% endfor %}',
 '{% for c in "abé" %}{{ c }}.{% endfor %}',
 '{% for a, b in [[1, 2], [3, 4]] %}{{ a }}{{ b }}{% endfor %}',
 '{% for a, b in [[1, 2, 3]] %}{{ a }}{% endfor %}',
 '{% for a, b in [[1]] %}{{ a }}{% endfor %}',
 '{% for i in x %}{% if i == 2 %}{% continue %}{% endif %}{{ i }}{% endfor %}',
 '{% for i in x %}{% if i == 2 %}{% break %}{% endif %}{{ i }}{% endfor %}',
 '{% for i in x %}{% for j in x %}{% if j > i %}{% break %}{% endif %}{{ i }}{{ j }} {% endfor %}{% endfor %}',
 '{% for i in x %}{% for j in x %}{{ loop.index }}{% endfor %}{{ loop.index }}|{% endfor %}',
 '{% for i in 5 %}{% endfor %}',
 '{% for i in none %}{% endfor %}',
 '{% if 0 %}a{% elif "" %}b{% elif [1] %}c{% else %}d{% endif %}',
 '{% if false %}a{% else %}b{% endif %}',
 '{% macro m(a, b=2, c="x") %}{{ a }}{{ b }}{{ c }}{% endmacro %}{{ m(1) }} {{ m(1, 3) }} {{ m(1, c="y") }} {{ m() }}',
 '{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, 2) }}',
 '{% macro m(a) %}{{ a }}{% endmacro %}{{ m(b=2) }}',
 '{% macro m() %}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1, 2, k=3) }}',
 '{% macro m(a, b=a) %}{{ b }}{% endmacro %}{{ m(5) }}',
 '{% macro m() %}[{{ caller() }}]{% endmacro %}{% call m() %}inside{% endcall %}',
 '{% macro m() %}[{{ caller(1, 2) }}]{% endmacro %}{% call(a, b) m() %}{{ a }}+{{ b }}{% endcall %}',
 '{% macro rec(n) %}{% if n > 0 %}{{ n }}{{ rec(n - 1) }}{% endif %}{% endmacro %}{{ rec(5) }}',
 '{% macro m() %}x{% endmacro %}{{ m }}',
 '{% filter upper %}abc {{ 1 }}{% endfilter %}',
 '{% filter replace("a", "b") | upper %}aaa{% endfilter %}',
 '{% with a = 1, b = 2 %}{{ a + b }}{% endwith %}{{ a }}|',
 '{% print 1, 2 %}',
 '{% set x = 5 %}{{ x }}',
 '{{ range(5) | list }} {{ range(1, 10, 3) | list }} {{ range(5, 0, -2) | list }} {{ range(0) | list }}',
 '{{ range(100001) | length }}',
 '{{ dict(a=1, b=2) }} {{ dict([["a", 1]]) }}',
 '{% set j = joiner(", ") %}{% for i in x %}{{ j() }}{{ i }}{% endfor %}',
 '{{ raise_exception("boom") }}',
 '{{ raise_exception("bad " ~ 1) }}',
]

V_FILTERS = {'x': [3, 1, 2], 'd': {'b': 2, 'a': 1, 'C': 3}, 's': '  Hello World  ', 'n': None, 'f': 2.5, 'u': 'ünï çödé',
     'people': [{'name': 'Bob', 'age': 30, 'tags': ['a']}, {'name': 'alice', 'age': 25}, {'name': 'Carl', 'age': 30, 'nick': 'C'}],
     'words': ['b', 'A', 'a', 'B', 'c'], 'nested': {'a': {'b': [10, 20]}}, 'txt': 'line1\nline2\n\nline4'}
CASES_FILTERS = [
 '{{ "a" is escaped }} {{ 1 is lessthan 2 }} {{ x|select("!=", 2)|list }} {{ x|select("<", 2)|list }} {{ x|select("<=", 2)|list }} {{ x|reject(">=", 2)|list }}',
 '{{ "abcabc".rindex("b") }} {{ "ab".center(6, "*") }}', '{{ "abc".rindex("z") }}',
 '{{ "😀é\x7f\x1f"|tojson(ensure_ascii=true) }} {{ "😀é\x7f\x1f"|tojson }} {{ "\u2028"|tojson }}',
 '{{ {"b": 1, "a": [1.5, 1e20, -0.0]}|tojson(sort_keys=true, indent=1) }}|{{ [1, [2, [3]]]|tojson(indent=0) }}',
 '{{ {"a": {"b": {}}}|tojson(indent="--") }}|{{ [1e400, -1e400]|tojson }}|{{ {"a": 1}|tojson(separators=[",", "="]) }}',
 "{{ {'a': 1, 1: 2}|tojson(sort_keys=true) }}", '{{ -0.0 }} {{ -(0.0) }} {{ -1.5 }} {{ -true }}',
 '{{ -3|abs }} {{ 2.5|abs }} {{ true|abs }}',
 '{{ x|batch(2)|list }} {{ x|batch(2, "z")|list }}',
 '{{ s|capitalize }} {{ "hELLO wORLD"|capitalize }} {{ u|capitalize }}',
 '{{ "ab"|center(7) }}|{{ "abc"|center(6) }}|{{ "ab"|center(1) }}|',
 '{{ x|count }} {{ s|length }} {{ u|length }} {{ d|length }} {{ n|default("nn") }} {{ zz|default("dd") }} {{ ""|default("e", true) }} {{ 0|d(5, boolean=true) }}',
 '{{ d|dictsort }} {{ d|dictsort(true) }} {{ d|dictsort(by="value") }} {{ d|dictsort(reverse=true) }}',
 '{{ "<a href=\'x\'>&</a>"|e }} {{ "<>"|escape }} {{ none|e }}',
 '{{ x|first }} {{ x|last }} {{ []|first }}|{{ "abc"|first }} {{ "abc"|last }}',
 '{{ "1.5"|float }} {{ "x"|float }} {{ "x"|float(1.0) }} {{ 3|float }} {{ " 2e3 "|float }} {{ "inf"|float }} {{ "1_0.5"|float }}',
 '{{ "%s-%d"|format("a", 3) }} {{ "%(a)s"|format(a=1) }} {{ "%5.2f|%-5s|%x|%o|%e"|format(3.14159, "ab", 255, 8, 1234.5) }}',
 '{{ "%s %s"|format(1) }}',
 '{{ "%s"|format(1, 2) }}',
 '{{ txt|indent }}|{{ txt|indent(2, true) }}|{{ txt|indent(2, blank=true) }}|{{ txt|indent("> ") }}',
 '{{ "42"|int }} {{ "42.9"|int }} {{ 3.9|int }} {{ "x"|int }} {{ "x"|int(7) }} {{ "0x1f"|int(base=16) }} {{ "ff"|int(base=16) }} {{ " 12 "|int }} {{ "1_000"|int }} {{ true|int }}',
 '{{ d|items|list }} {{ zz|items|list }}',
 '{{ x|join }} {{ x|join(", ") }} {{ people|join(", ", attribute="name") }} {{ [1, none, "a"]|join("-") }}',
 '{{ x|list }} {{ "ab"|list }} {{ d|list }}',
 '{{ s|lower }} {{ s|upper }} {{ u|upper }} {{ "ß"|upper }}',
 '{{ people|map(attribute="name")|list }} {{ people|map(attribute="nick", default="-")|list }} {{ words|map("upper")|list }} {{ x|map("string")|list }}',
 '{{ x|max }} {{ x|min }} {{ words|max }} {{ words|min }} {{ words|max(case_sensitive=true) }} {{ people|max(attribute="age") }} {{ []|max }}|',
 '{{ x|select("odd")|list }} {{ x|reject("odd")|list }} {{ [0, 1, "", "a", none]|select|list }} {{ x|select("greaterthan", 1)|list }} {{ x|select(">", 1)|list }}',
 '{{ people|selectattr("age", "equalto", 30)|map(attribute="name")|list }} {{ people|rejectattr("nick")|list|length }} {{ people|selectattr("nick", "defined")|list|length }}',
 '{{ people|selectattr("age", "==", 25)|list }}',
 '{{ s|replace("l", "L") }} {{ s|replace("l", "L", 2) }} {{ "aaa"|replace("", "-") }}',
 '{{ x|reverse|list }} {{ "abc"|reverse }} {{ u|reverse }}',
 '{{ 2.5|round }} {{ 3.5|round }} {{ 2.675|round(2) }} {{ 3|round }} {{ 2.5|round(method="ceil") }} {{ 2.5|round(method="floor") }} {{ -2.5|round }} {{ 1234|round(-2) }} {{ 1.23456|round(3) }}',
 '{{ "<b>"|safe }} {{ 1|safe }}',
 '{{ [1,2,3,4,5,6,7]|slice(3)|list }} {{ [1,2,3,4,5,6,7]|slice(3, "x")|list }}',
 '{{ x|sort }} {{ x|sort(reverse=true) }} {{ words|sort }} {{ words|sort(case_sensitive=true) }} {{ people|sort(attribute="age")|map(attribute="name")|list }} {{ people|sort(attribute="name")|map(attribute="name")|list }}',
 '{{ [1, "a"]|sort }}',
 '{{ 1|string }} {{ none|string }} {{ [1]|string }} {{ 1.0|string }}',
 '{{ x|sum }} {{ people|sum(attribute="age") }} {{ x|sum(start=10) }} {{ [1.5, 2]|sum }}',
 '{{ "hello world-foo(bar) x{y"|title }} {{ "hELLO wORLD"|title }} {{ "they\'re bill\'s"|title }}',
 '{{ d|tojson }} {{ people|tojson }} {{ "é\\n\\"<>"|tojson }} {{ [1.0, none, true, 1e100]|tojson }} {{ u|tojson(ensure_ascii=true) }}',
 '{{ nested|tojson(indent=2) }}|{{ []|tojson(indent=2) }}|{{ {}|tojson(indent=2) }}|{{ [[]]|tojson(indent=2) }}',
 '{{ d|tojson(sort_keys=true) }} {{ d|tojson(separators=(",", ":")) }} {{ {1: 2, none: 3, true: 4, 1.5: 5}|tojson }}',
 '{{ nested|tojson(indent="\\t") }}',
 '{{ zz|tojson }}',
 '{{ namespace(a=1)|tojson }}',
 '{{ s|trim }}|{{ "xxhixx"|trim("x") }}|{{ "\u3000\u00a0 hi \u2028\u0085"|trim }}|{{ "\ufeffhi"|trim }}|',
 '{{ "hello world this is long"|truncate(10) }}|{{ "hello world this is long"|truncate(10, true) }}|{{ "hello"|truncate(3, leeway=0) }}|{{ "hello world"|truncate(9, end="!", leeway=0) }}',
 '{{ words|unique|list }} {{ words|unique(case_sensitive=true)|list }} {{ people|unique(attribute="age")|map(attribute="name")|list }}',
 '{{ "hello  world, foo_bar 123!"|wordcount }} {{ u|wordcount }}',
 '{{ people[0]|attr("name") }}|{{ d|attr("items") }}|',
 '{{ x|nosuchfilter }}',
 '{{ x is nosuchtest }}',
 # tests
 '{{ 1 is odd }} {{ 2 is even }} {{ 9 is divisibleby 3 }} {{ 9 is divisibleby(4) }} {{ none is none }} {{ 1 is number }} {{ true is number }} {{ 1 is integer }} {{ true is integer }} {{ 1.0 is float }}',
 '{{ "a" is string }} {{ d is mapping }} {{ x is iterable }} {{ x is sequence }} {{ 1 is iterable }} {{ "a" is sequence }} {{ zz is iterable }} {{ true is boolean }} {{ 1 is boolean }}',
 '{{ false is false }} {{ 0 is false }} {{ true is true }} {{ 1 is true }} {{ 1 is eq 1 }} {{ 1 is equalto 2 }} {{ 1 is ne 2 }} {{ 1 is lt 2 }} {{ 2 is ge 2 }} {{ 3 is gt 2 }} {{ 1 is le 0 }}',
 '{{ 1 is in x }} {{ "a" is in "cat" }} {{ none is sameas none }} {{ x is sameas x }} {{ "abc" is lower }} {{ "ABC" is upper }} {{ "aB" is lower }}',
 '{{ "upper" is filter }} {{ "odd" is test }} {{ "nope" is filter }} {{ range is callable }} {{ 1 is callable }} {{ zz is callable }}',
 '{{ zz is odd }}',
 '{{ x is not defined }} {{ zz is not defined }} {{ not zz is defined }}',
 # methods
 '{{ s.strip() }}|{{ s.lstrip() }}|{{ s.rstrip() }}|{{ "xxhixx".strip("x") }}|{{ "\\n\\nhi\\n".lstrip("\\n") }}|{{ "abcba".strip("ab") }}',
 '{{ "a,b,,c".split(",") }} {{ " a  b ".split() }} {{ "a b c".split(none, 1) }} {{ "a,b,c".rsplit(",", 1) }} {{ " a b  c ".rsplit(none, 1) }} {{ "".split() }} {{ "".split(",") }} {{ "abc".split("b", 0) }}',
 '{{ "a</think>b</think>c".split("</think>")[-1] }} {{ "x".split("") }}',
 '{{ s.startswith("  H") }} {{ s.endswith(("x", "  ")) }} {{ "abc".startswith("b", 1) }} {{ "abc".endswith("b", 0, 2) }}',
 '{{ s.upper() }} {{ s.lower() }} {{ "hello wORLD 3rd x-y"|title }} {{ "hello wORLD 3rd x-y".title() }} {{ "abc".capitalize() }} {{ "aBc".swapcase() }}',
 '{{ "aaa".replace("a", "b", 2) }} {{ "abc".find("c") }} {{ "abc".find("z") }} {{ "abcabc".rfind("b") }} {{ "abcabc".count("b") }} {{ "aaa".count("") }} {{ u.find("ç") }} {{ "abc".index("c") }}',
 '{{ "abc".index("z") }}',
 '{{ "-".join(["a", "b"]) }} {{ "".join("abc") }}',
 '{{ "-".join([1, 2]) }}',
 '{{ "123".isdigit() }} {{ "abc".isalpha() }} {{ "a1".isalnum() }} {{ " ".isspace() }} {{ "ABC".isupper() }} {{ "abc".islower() }} {{ "".isdigit() }}',
 '{{ "prefix_x".removeprefix("prefix_") }} {{ "x.txt".removesuffix(".txt") }} {{ "a=b=c".partition("=") }} {{ "a=b=c".rpartition("=") }} {{ "ab".ljust(4, "*") }}|{{ "ab".rjust(4) }}|{{ "42".zfill(5) }} {{ "-42".zfill(5) }}',
 '{{ "a\\nb\\r\\nc\\rd".splitlines() }} {{ "a\\nb\\n".splitlines(true) }}',
 '{{ "{} and {}".format(1, "b") }} {{ "{0}{1}{0}".format("a", "b") }} {{ "{name}!".format(name="x") }} {{ "{:>5}|{:<5}|{:^5}".format("a", "b", "c") }} {{ "{:.2f} {:05d} {:,} {:x} {:+d}".format(3.14159, 42, 1234567, 255, 5) }} {{ "{{}}".format() }} {{ "{0[0]}".format(x) }} {{ "{!r}".format("a") }}',
 '{{ x.count(1) }} {{ x.index(2) }} {{ x.copy() }} {{ d.get("a") }} {{ d.get("z") }} {{ d.get("z", 0) }} {{ d.keys()|list }} {{ d.values()|list }} {{ d.items()|list }}',
 '{{ (1, 2).count(1) }}',
 '{{ "%s and %r" % ("a", "b") }} {{ "%d%%" % 50 }} {{ "%.3s" % "abcdef" }} {{ "%5d|%-5d|" % (1, 2) }} {{ "%c%c" % (65, "b") }}',
 '{{ nested.a.b[1] }} {{ nested["a"]["b"][-1] }}',
 '{{ strftime_now("%Y") | length }}',
]

V_SYNTAX = {'x': [1, 2]}
CASES_SYNTAX = [
 '{% if %}x{% endif %}', '{% if true %}x', '{% for %}', '{% for i in x %}', '{% foo %}', '{% endif %}',
 '{% if true %}{% endfor %}{% endif %}', '{{ }}', '{{ 1 + }}', '{{ (1 }}', '{{ [1, 2 }}', '{{ x[ }}', '{{ 1 2 }}',
 '{{ "abc }}', "{{ 'a\\x4' }}", '{% set %}', '{% set 1 = 2 %}', '{% macro %}', '{% macro m(a=1, b) %}{% endmacro %}',
 '{{ x | }}', '{{ x is }}', '{# unterminated', '{% raw %}abc', '{{ x }', '{{ ) }}', '{{ } }}', '{{ a.1b }}',
 '{% break %}', '{% for i in x %}{% macro m() %}{% break %}{% endmacro %}{% endfor %}', '{% continue %}',
 '{% for i in x recursive %}{% endfor %}', '{% call m %}{% endcall %}', '{% with %}{% endwith %}{{ 1 }}',
 '{% endfor %}', '{% else %}', '{% if x %}{% else %}{% else %}{% endif %}', '{{ 1 if 2 }}', '{{ 1 if }}',
 '{% set x = 1 %}{% endset %}', '{{ x.__class__ }}', '{{ 1 is is }}', '{{ 1 is not odd }}', '{{ not }}',
 '{{ 99999999999999999999 }}', '{{ 1e999 }}', '{{ 0b }}', '{{ 1_ }}', '{{ .5 }}', '{{ 5. }}', '{{ 1.5e }}',
 '{{ "a" ~ }}', '{{ {1: } }}', '{{ {1 2} }}', '{{ f(a=1, 2) }}', '{{ f(*x, *x) }}', '{{ range(*x) }}', '{{ dict(**{"a": 1}) }}',
 '{{ range(1, 3, *[]) | list }}', '{% set a, b = x %}{{ a }}{{ b }}', '{% set (a, b) = x %}{{ a }}', '{% for (a, b) in [x] %}{{ a }}{{ b }}{% endfor %}',
 '{{ x[0:1, 1] }}', '{{ x[::0] }}', '{{ x["a":] }}', '{{ "abc"[1.5] }}|', '{{ x[true] }}',
 '{% if true %}a{%else%}b{%endif%}', '{%if true%}a{%endif%}', '{{- "x" -}}', '{%- set a = 1 -%}  {{ a }}',
 'a{#-x-#}b', '{{ "{{" }}', '{{ "}}" }}', '{% set a = "%}" %}{{ a }}', '{{ {"a": {"b": 1}} }}',
 '{{ -1 }} {{ - 1 }} {{ +1 }} {{ -(-1) }} {{ --1 }} {{ -true }} {{ +true }}', '{{ not 1 == 2 }}', '{{ (not 1) == 2 }}',
 '{{ 1 + 2 ~ 3 }}', '{{ 1 ~ 2 + 3 }}', '{{ 2 * 3 ~ 4 }}', '{{ "a" ~ 1 + 2 }}', '{{ x|length + 1 }}', '{{ -x|length }}', '{{ -2|abs }}',
 '{{ 1 if true else 2 if false else 3 }}', '{{ (1 if false) is defined }}', '{{ 1 and 2 or 3 }}', '{{ none and foo.bar }}', '{{ 1 or foo.bar }}',
 '{% for i in x %}{{ i }}{% else %}E{% endfor %}', '{% for i in x if i > 5 %}{{ i }}{% else %}E{% endfor %}',
 '{% set a = 1 %}{% for i in x %}{% set a = 2 %}{% endfor %}{{ a }}', '{% for i in x %}{% set b = i %}{% endfor %}{{ b }}|',
 '{% macro m() %}{% set q = 1 %}{{ q }}{% endmacro %}{{ m() }}{{ q }}|', '{% if true %}{% set z = 3 %}{% endif %}{{ z }}',
 '{% with %}{% set w = 1 %}{% endwith %}{{ w }}|', '{% set a = 1 %}{% with a = a + 1 %}{{ a }}{% endwith %}{{ a }}',
 '{% macro outer() %}{% macro inner() %}I{% endmacro %}{{ inner() }}{% endmacro %}{{ outer() }}',
 '{% macro m(a) %}{{ a }}{% endmacro %}{{ m(a=1) }}{{ m(*[2]) }}{{ m(**{"a": 3}) }}', '{% macro m() %}{{ caller is defined }}{% endmacro %}{{ m() }}',
 '{% macro m() %}{{ caller() }}{% endmacro %}{{ m() }}',
 '{% for a in x %}{% for b in x %}{{ loop.previtem }}{% endfor %}{% endfor %}', '{{ loop }}|', '{% for i in x %}{{ loop.foo }}|{% endfor %}',
 '{% filter trim %}  x  {% endfilter %}', '{% set x %}  a  {% endset %}{{ x|trim }}', '{% set a = [1, 2][1] %}{{ a }}',
 '{% for k, v in {"a": 1}|dictsort %}{{ k }}{{ v }}{% endfor %}', '{{ x * 2 }} {{ (1, 2) * 2 }} {{ x * -1 }}', '{{ [[1], [2]]|sum(start=[]) }}',
 '{{ "%s" % none }} {{ "%s" % [1] }} {{ "%s %s" % (1, 2) }} {{ "%(a)s %(b)d" % {"a": "x", "b": 2} }}', '{{ "%d" % "x" }}', '{{ "%q" % 1 }}',
 '{{ 10 ** 20 }}', '{{ 2 ** -1 }}', '{{ 2.0 ** 0.5 }}', '{{ (-8) ** 0.5 }}', '{{ 9223372036854775807 + 1 }}', '{{ 1e308 * 10 }} {{ -1e308 * 10 }}',
 '{{ 0.1 + 0.7 }} {{ 1/3 }} {{ 2/3 }} {{ 100.0 }} {{ 1e16 }} {{ 1.5e-7 }} {{ 123456789.123 }}', '{{ 5 % -3 }} {{ -5 % 3 }} {{ 5.5 % 2 }} {{ -5.5 // 2 }} {{ 5 // -2.0 }}',
]

texts = ['', ' ', '  ', '\t', '\n', ' \n', '\n  ', 'a', ' b ', '\n\n', 'c\n', '  \t\n', '\u00a0', '\r\n', 'x\r', ' \n \n']
def sign(): return random.choice(['', '', '-', '+'])
def esign(): return random.choice(['', '', '-', '+'])
def gen(depth=0):
    out = []
    for _ in range(random.randint(1, 5)):
        k = random.randint(0, 9)
        out.append(random.choice(texts))
        if k < 3:
            out.append('{{%s %s %s}}' % (random.choice(['', '-', '+']), random.choice(['1', '"v"', 'x', 'none']), random.choice(['', '-'])))
        elif k < 5 and depth < 3:
            out.append('{%%%s if %s %s%%}' % (sign(), random.choice(['true', 'false']), esign()))
            out.append(gen(depth + 1))
            if random.random() < 0.4:
                out.append('{%%%s else %s%%}' % (sign(), esign()))
                out.append(gen(depth + 1))
            out.append('{%%%s endif %s%%}' % (sign(), esign()))
        elif k < 6 and depth < 3:
            out.append('{%%%s for i in [1, 2] %s%%}' % (sign(), esign()))
            out.append(gen(depth + 1))
            out.append('{%%%s endfor %s%%}' % (sign(), esign()))
        elif k < 7:
            out.append('{#%s c %s#}' % (sign(), esign()))
        elif k < 8:
            out.append('{%%%s raw %s%%}%s{{ r }}%s{%%%s endraw %s%%}' % (sign(), random.choice(['', '-']), random.choice(texts), random.choice(texts), sign(), esign()))
        elif k < 9:
            out.append('{%%%s set y = 1 %s%%}' % (sign(), esign()))
    out.append(random.choice(texts))
    return ''.join(out)


# ---- every filter on an undefined value, None, a number and a dict ----
FL = ['abs', 'attr("x")', 'batch(2)|list', 'capitalize', 'center', 'count', 'default', 'dictsort', 'e',
      'first', 'float', 'forceescape', 'format', 'indent', 'int', 'items|list', 'join', 'last', 'length',
      'list', 'lower', 'map("upper")|list', 'max', 'min', 'reject|list', 'rejectattr("a")|list',
      'replace("a","b")', 'reverse|list', 'round', 'safe', 'select|list', 'selectattr("a")|list',
      'slice(2)|list', 'sort', 'string', 'sum', 'title', 'tojson', 'trim', 'truncate', 'unique|list',
      'upper', 'wordcount']
CASES_EDGES = ['{{ %s|%s }}' % (v, f) for v in ('zz', 'n', '5', 'd') for f in FL]
V_EDGES = {'n': None, 'd': {'b': 1, 'a': 2}}

# ---- scoping: random nestings of for, if, with, macro, block set, filter ----
def stmt_body(d=0):
    def val():
        return random.choice(['1', 'a', 'b + 1', "'s'", 'c ~ "x"', 'loop.index', 'ns.v', 'i', '[1,2]',
                              'a if b else c'])
    out = []
    for _ in range(random.randint(1, 4)):
        r = random.random()
        if r < 0.2:
            out.append('{{ %s }}' % random.choice(['a', 'b', 'c', 'ns.v', 'i', 'loop.index0']))
        elif r < 0.35:
            out.append('{%% set %s = %s %%}' % (random.choice('abc'), val()))
        elif r < 0.45:
            out.append('{%% set ns.v = %s %%}' % val())
        elif r < 0.55 and d < 3:
            out.append('{%% for i in [1, 2] %%}%s{%% endfor %%}' % stmt_body(d + 1))
        elif r < 0.62 and d < 3:
            out.append('{%% if %s %%}%s{%% else %%}%s{%% endif %%}' % (
                random.choice(['a', 'b', 'c', 'i', 'loop.first']), stmt_body(d + 1), stmt_body(d + 1)))
        elif r < 0.7 and d < 3:
            out.append('{%% with %s = %s %%}%s{%% endwith %%}' % (random.choice('abc'), val(), stmt_body(d + 1)))
        elif r < 0.78 and d < 2:
            out.append('{%% macro m%d(x=1) %%}%s{%% endmacro %%}{{ m%d() }}' % (d, stmt_body(d + 1), d))
        elif r < 0.84 and d < 2:
            out.append('{%% set %s %%}%s{%% endset %%}' % (random.choice('abc'), stmt_body(d + 1)))
        elif r < 0.9 and d < 2:
            out.append('{%% filter upper %%}%s{%% endfilter %%}' % stmt_body(d + 1))
        else:
            out.append(random.choice(['|', '\n', ' ']))
    return ''.join(out)


random.seed(11)
CASES_SCOPE = ['{% set ns = namespace(v=0) %}{% set a = 5 %}' + stmt_body() + '|{{ a }}{{ b }}{{ c }}{{ ns.v }}'
               for _ in range(40)]
V_SCOPE = {}

# ---- whitespace control: random nestings of tags, signs and text ----
random.seed(7)
CASES_WS = [gen() for _ in range(60)]
V_WS = {'x': 'X'}


# documented deviations (docs/chat-template.md): printed method objects carry
# no address, integers are 64-bit, no complex numbers, range() is a list, the
# time changes, no recursive loops, simple case mapping of characters like ß.
DEVIATIONS = ['d.items }}', 'attr("items")', '99999999999999999999', '10 ** 20', '(-8) ** 0.5',
              '9223372036854775807 + 1', 'range(*x)', 'strftime_now', 'recursive', '{{ range }}']


def render(src, vars):
    try:
        return env.from_string(src).render(messages=[], tools=None, documents=None,
                                           add_generation_prompt=False, **vars)
    except Exception:
        return None


def clit(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '\\':
            out.append('\\\\')
        elif ch == '"':
            out.append('\\"')
        elif ch == '\n':
            out.append('\\n')
        elif ch == '\t':
            out.append('\\t')
        elif ch == '\r':
            out.append('\\r')
        elif ch == '?':
            out.append('\\?')
        elif o < 0x20 or o == 0x7f:
            out.append('\\%03o' % o)
        else:
            out.append(ch)
    out.append('"')
    return ''.join(out)


PARTS = {
    '1': [('misc', V_MISC, CASES_MISC), ('filters', V_FILTERS, CASES_FILTERS)],
    '2': [('syntax', V_SYNTAX, CASES_SYNTAX), ('edges', V_EDGES, CASES_EDGES),
          ('whitespace', V_WS, CASES_WS)],
    '3': [('scope', V_SCOPE, CASES_SCOPE)],
}
part = sys.argv[1] if len(sys.argv) > 1 else '1'
GROUPS = PARTS[part]

w = sys.stdout.write
w("""/* Template semantics against Python jinja2, part %s. GENERATED by
 * tests/unit/gen_chat_jinja.py %s from its case list: each expected output is
 * what jinja2 3.1.6 renders in transformers' setup (NULL: jinja2 fails, so we
 * must fail too). Do not edit by hand; edit the generator and rerun it. */
#include <criterion/criterion.h>

#include <string.h>

#include "chat/chat.h"

typedef struct {
	const char *tmpl;
	const char *want; /* NULL: an error */
} jcase;

/* Renders every case; reports each mismatch (test_chat_jinja.c). */
void chat_jinja_run(const char *group, const char *vars_json, const jcase *c, size_t n);

""" % (part, part))
for name, vars, cases in GROUPS:
    w('static const char %s_vars[] = %s;\n' % (name, clit(json.dumps(vars, ensure_ascii=False))))
    w('static const jcase %s_cases[] = {\n' % name)
    for src in cases:
        if any(d in src for d in DEVIATIONS):
            continue
        out = render(src, vars)
        w('    {%s,\n     %s},\n' % (clit(src), clit(out) if out is not None else 'NULL'))
    w('};\n\n')
if part == '1':
    w("""void chat_jinja_run(const char *group, const char *vars_json, const jcase *c, size_t n)
{
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	ib_val *vars = NULL;
	cr_assert_eq(ib_json_parse(a, "vars", vars_json, strlen(vars_json), &vars, &e), 0, "%s", e.msg);
	for (size_t i = 0; i < n; i++) {
		chat_tmpl *t = NULL;
		ib_buf out = {0};
		memset(&e, 0, sizeof e);
		int rc = chat_tmpl_parse(c[i].tmpl, strlen(c[i].tmpl), "case", &t, &e);
		if (!rc)
			rc = chat_tmpl_render(t, vars, &out, &e);
		if (c[i].want) {
			cr_expect_eq(rc, 0, "%s[%zu] %s: failed: %s:%d:%d: %s", group, i, c[i].tmpl, e.file,
			             e.line, e.col, e.msg);
			if (!rc)
				cr_expect_str_eq(out.data ? out.data : "", c[i].want, "%s[%zu] %s", group, i,
				                 c[i].tmpl);
		} else {
			cr_expect_neq(rc, 0, "%s[%zu] %s: rendered %s but jinja2 fails", group, i,
			              c[i].tmpl, out.data ? out.data : "");
			cr_expect(rc == 0 || (e.msg[0] && e.line > 0), "%s[%zu]: an error without a position",
			          group, i);
		}
		chat_tmpl_free(t);
		ib_buf_free(&out);
	}
	ib_arena_free(a);
}
""")
w('\n#define N(x) (sizeof(x) / sizeof(x)[0])\n')
for name, _, _ in GROUPS:
    w('\nTest(chat_jinja, %s)\n{\n\tchat_jinja_run("%s", %s_vars, %s_cases, N(%s_cases));\n}\n' % (name, name, name, name, name))
