package tmpl

import (
	"math"
	"strings"
)

// cost estimates, before a function runs, what it builds or walks: its result and the
// work it does, in bytes. A negative cost refuses the call (an argument that would make
// it misbehave, such as chunk 0).
type cost func(c call) int

// costs are the functions whose work is not about what they are given: those that repeat,
// pad, count up or multiply what they are given. Every other function of the set costs
// scale(f) times the size of its arguments (costScale). TestEveryFunctionHasACost holds the
// set to this table: a function sprig adds fails it until it is placed.
var costs = map[string]cost{
	"repeat":                     func(a call) int { return mul(a.int(0), len(a.str(1))) },
	"indent":                     indentCost,
	"nindent":                    indentCost,
	"until":                      func(a call) int { return mul(abs(a.int(0)), 24) },
	"untilStep":                  untilStepCost,
	"seq":                        seqCost,
	"replace":                    func(a call) int { return replaceCost(len(a.str(2)), len(a.str(0)), len(a.str(1)), 0) },
	"regexReplaceAll":            func(a call) int { return replaceCost(len(a.str(1)), 0, len(a.str(2)), strings.Count(a.str(2), "$")) },
	"mustRegexReplaceAll":        func(a call) int { return replaceCost(len(a.str(1)), 0, len(a.str(2)), strings.Count(a.str(2), "$")) },
	"regexReplaceAllLiteral":     func(a call) int { return replaceCost(len(a.str(1)), 0, len(a.str(2)), 0) },
	"mustRegexReplaceAllLiteral": func(a call) int { return replaceCost(len(a.str(1)), 0, len(a.str(2)), 0) },
	"join":                       func(a call) int { return add(a.size(1), mul(a.len(1), len(a.str(0)))) },
	"wrapWith":                   func(a call) int { return add(len(a.str(2)), mul(len(a.str(2))/max(a.int(0), 1)+1, len(a.str(1)))) },
	"uniq":                       func(a call) int { return add(a.size(0), mul(mul(a.len(0), a.len(0)), 8)) },
	"mustUniq":                   func(a call) int { return add(a.size(0), mul(mul(a.len(0), a.len(0)), 8)) },
	"without":                    withoutCost,
	"mustWithout":                withoutCost,
	"chunk":                      chunkCost,
	"mustChunk":                  chunkCost,
	"printf":                     printfCost,
	"hello":                      func(call) int { return nodeCost },
}

// linear are the functions whose work and result are at most costScale (default 1) times
// the size of their arguments: they copy, encode, parse, compare or pick from what they
// are given. Every function of the set is in exactly one of refused, costs and linear.
var linear = []string{
	"abbrev", "abbrevboth", "add", "add1", "add1f", "addf", "adler32sum", "all", "any", "append",
	"atoi", "b32dec", "b32enc", "b64dec", "b64enc", "base", "biggest", "buildCustomCert",
	"camelcase", "cat", "ceil", "clean", "coalesce", "compact", "concat", "contains", "date",
	"dateInZone", "dateModify", "date_in_zone", "date_modify", "decryptAES", "deepCopy",
	"deepEqual", "default", "dict", "dig", "dir", "div", "divf", "duration", "durationRound",
	"empty", "ext", "fail", "first", "float64", "floor", "fromJson", "fromYaml", "fromYamlArray",
	"get", "has", "hasKey", "hasPrefix", "hasSuffix", "html", "htmlDate", "htmlDateInZone",
	"initial", "initials", "int", "int64", "isAbs", "js", "kebabcase", "keys", "kindIs", "kindOf",
	"last", "list", "lower", "max", "maxf", "merge", "mergeOverwrite", "min", "minf", "mod",
	"mul", "mulf", "mustAppend", "mustCompact", "mustDateModify", "mustDeepCopy", "mustFirst",
	"mustFromJson", "mustHas", "mustInitial", "mustLast", "mustMerge", "mustMergeOverwrite",
	"mustPrepend", "mustPush", "mustRegexFind", "mustRegexFindAll", "mustRegexMatch",
	"mustRegexSplit", "mustRest", "mustReverse", "mustSlice", "mustToDate", "mustToJson",
	"mustToPrettyJson", "mustToRawJson", "must_date_modify", "normalize", "nospace", "omit",
	"osBase", "osClean", "osDir", "osExt", "osIsAbs", "pick", "pluck", "plural", "prepend",
	"print", "println", "push", "quote", "regexFind", "regexFindAll", "regexMatch",
	"regexQuoteMeta", "regexSplit", "rest", "reverse", "round", "semver", "semverCompare", "set",
	"sha1sum", "sha256sum", "sha512sum", "slice", "slugify", "snakecase", "sortAlpha", "split",
	"splitList", "splitn", "squote", "sub", "subf", "substr", "swapcase", "ternary", "title",
	"toDate", "toDecimal", "toJson", "toPrettyJson", "toRawJson", "toString", "toStrings",
	"toYaml", "trim", "trimAll", "trimPrefix", "trimSuffix", "trimall", "trunc", "tuple",
	"typeIs", "typeIsLike", "typeOf", "unixEpoch", "unset", "untitle", "upper", "urlJoin",
	"urlParse", "urlquery", "values", "wrap",
}

// costScale is how many times its arguments' size a function of the default class may
// build: escaping encoders grow text up to six times (json's \u003c for '<'), splitting
// a string into a list costs a list node per piece.
var costScale = map[string]int{
	"toJson": 6, "mustToJson": 6, "toPrettyJson": 6, "mustToPrettyJson": 6, "toRawJson": 6, "mustToRawJson": 6,
	"toYaml": 6, "quote": 6, "squote": 6, "html": 6, "js": 6, "urlquery": 3, "print": 2, "println": 2,
	"b64enc": 2, "b32enc": 2, "regexQuoteMeta": 2, "wrap": 2, "toString": 6, "toStrings": 24,
	"splitList": 24, "split": 32, "splitn": 32, "regexSplit": 24, "mustRegexSplit": 24,
	"regexFindAll": 24, "mustRegexFindAll": 24, "fromJson": 32, "mustFromJson": 32,
	"fromYaml": 32, "fromYamlArray": 32, "upper": 3, "lower": 3, "title": 3, "untitle": 3,
	"swapcase": 3, "camelcase": 3, "kebabcase": 3, "snakecase": 3, "normalize": 3, "slugify": 3,
	"date": 4, "dateInZone": 4, "date_in_zone": 4, "htmlDate": 4, "htmlDateInZone": 4, "urlParse": 4,
}

func indentCost(a call) int {
	n, s := a.int(0), a.str(1)
	if n < 0 {
		n = 0
	}
	return add(len(s), mul(n+1, strings.Count(s, "\n")+2))
}

func untilStepCost(a call) int {
	return mul(untilStepCount(a.int(0), a.int(1), a.int(2)), 24)
}

// untilStepCount bounds how many numbers untilStep yields (sprig yields none when step
// points away from stop, or is 0).
func untilStepCount(start, stop, step int) int {
	if step == 0 {
		return 0
	}
	span := math.Abs(float64(stop) - float64(start))
	return add(clampInt(span/math.Abs(float64(step))), 1)
}

// seqCost: seq N, seq FIRST LAST or seq FIRST STEP LAST, as GNU seq, printed as one string.
func seqCost(a call) int {
	nums := make([]float64, len(a.args))
	for i := range a.args {
		nums[i] = float64(a.int(i))
	}
	var span, step float64 = 0, 1
	switch len(nums) {
	case 1:
		span = math.Abs(nums[0])
	case 2:
		span = math.Abs(nums[1] - nums[0])
	case 3:
		span, step = math.Abs(nums[2]-nums[0]), math.Abs(nums[1])
	}
	if step == 0 {
		return nodeCost
	}
	return mul(add(clampInt(span/step), 1), 21)
}

// replaceCost bounds a replacement of the matches in a text of length n: at most n+1
// matches (an empty pattern matches between runes), each written as the replacement —
// whose $-references each expand to at most the whole text.
func replaceCost(n, old, repl, refs int) int {
	matches := n + 1
	if old > 0 {
		matches = n/old + 1
	}
	return add(n, mul(matches, add(repl, mul(refs, n))))
}

func withoutCost(a call) int {
	return add(a.size(0), mul(mul(a.len(0), len(a.args)), 8))
}

func chunkCost(a call) int {
	size := a.int(0)
	if size < 1 {
		return -1 // sprig divides by it
	}
	return add(a.size(0), mul(a.len(1)/size+1, nodeCost))
}

// printfCost is the builtin printf's: its arguments as %v prints them (escaped at most six
// times over by %q), plus every width and precision it pads to.
func printfCost(a call) int {
	format := a.str(0)
	widest := 0
	for i := 1; i < len(a.args); i++ {
		if n, ok := asInt(a.args[i]); ok {
			widest = max(widest, abs(n))
		}
	}
	pad := 0
	for _, n := range formatNumbers(format) {
		if n < 0 { // '*': a width taken from the arguments
			n = widest
		}
		pad = add(pad, n)
	}
	return add(add(len(format), mul(a.size(1), 6)), pad)
}

// formatNumbers are the widths and precisions of a printf format, -1 for each '*'.
func formatNumbers(f string) []int {
	var out []int
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		for i++; i < len(f) && strings.IndexByte("+-# 0[]123456789.*", f[i]) >= 0; i++ {
			switch {
			case f[i] == '*':
				out = append(out, -1)
			case f[i] >= '1' && f[i] <= '9' && (i == 0 || f[i-1] != '['):
				n := 0
				for ; i < len(f) && f[i] >= '0' && f[i] <= '9'; i++ {
					n = add(mul(n, 10), int(f[i]-'0'))
				}
				i--
				out = append(out, n)
			}
		}
	}
	return out
}
