// The Go build cache of the tests that run real `go build`s (builds-source, build-cli): one of the tests' own, shared
// by them and kept between runs, never the user's ($GOCACHE, ${XDG_CACHE_HOME:-~/.cache}/go-build, which the builds
// used before: a run wrote into it, and a session with an XDG_CACHE_HOME of its own started cold). Go compiles the
// standard library once per build configuration into it: cold, a program of a few lines took 12 s of CPU to build (the
// fixtures' tool and source builds are two configurations, -trimpath or not), warm 0.2 s. Go keeps the cache safe
// for processes that share it and trims what it has not used for days.
import { join } from 'node:path';

export const TEST_GOCACHE = join(process.cwd(), 'node_modules', '.cache', 'nomad-reboot-harness-tests', 'go-build');
