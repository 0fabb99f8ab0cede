#!/usr/bin/env bash
# TokenBench setup: installs the Debian 12 packages the build needs (only those missing), then
# configures and builds with a CMake preset, and optionally runs the tests or starts the GUI.
#
#   bash packaging/setup.sh            install dependencies and build (preset "default" -> build/)
#   bash packaging/setup.sh --run      ... then start the GUI on the built-in simulator
#   bash packaging/setup.sh --test     ... then run every test with CTest
#   options: --preset NAME (default|dev|ci|asan|portable|asan-portable|tsan|fuzz),
#            --no-install (skip apt), -h|--help
#            --list-packages (print the Debian packages it would install, one a line, and exit)
#   (--preset asan, asan-portable and fuzz also install clang, their compiler; --preset fuzz with
#    --test runs fuzz/run.sh instead of CTest, and asan-portable builds the fuzz harnesses too;
#    --preset tsan builds and, with --test, runs only the threaded engine and simulator tests)
#
# A fresh Debian 12 machine needs root or sudo, and a reachable Debian mirror (apt-get update).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
preset=default
action=build
install=1
while [ $# -gt 0 ]; do
    case "$1" in
        --run) action=run ;;
        --test) action=test ;;
        --preset) preset=${2:?--preset needs a name: default, dev, ci, asan, portable, asan-portable, tsan or fuzz}; shift ;;
        --preset=*) preset=${1#--preset=} ;;
        --no-install) install=0 ;;
        --list-packages) action=list ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "setup.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    esac
    shift
done

# Each package and why TokenBench needs it (README "Dependencies" says the same).
packages=(
    g++                  # C++20 compiler
    cmake                # build system (3.25, presets)
    ninja-build          # fast parallel builds, the presets' generator
    qt6-base-dev         # QtCore, QtNetwork (core), QtGui, QtWidgets (GUI), QtTest
    qt6-charts-dev       # live dashboard and comparison charts
    libqt6opengl6-dev    # Qt6OpenGL's CMake package, which Qt6Charts' CMake package requires (qt6-base-dev only recommends it)
    qt6-svg-dev          # SVG export of charts
    libgl-dev            # required by Qt6Gui's CMake package
    nlohmann-json3-dev   # JSON for configurations, summaries and the simulator
    libnghttp2-dev       # the simulator's HTTP/2 (h2c): framing, HPACK, flow control
    liburing-dev         # the Linux backend's io_uring receive path (multishot receives into provided buffers)
    libyaml-dev          # import of llm-d Benchmark Reports in YAML (libyaml: PyYAML's parser, no recursion on the stack)
    pkgconf              # pkg-config, which finds libnghttp2, liburing and libyaml for CMake
    fonts-dejavu-core    # a font for offscreen rendering and screenshots
    xvfb xauth           # a virtual display for headless machines (GUI screenshots, --run without X)
    binutils             # readelf, used by a test that checks the CLI links no GUI library
    clang-format         # the format test: every C++ file matches .clang-format
    clang-tidy           # CI's clang-tidy step (packaging/tidy.sh), .clang-tidy's checks
    cppcheck             # the unused test: no function that nothing calls (packaging/check-unused.sh)
    nginx                # tst_tlsgateway: a real HTTP/2-only TLS gateway (ALPN) in front of the simulator
    squid                # tst_tlsgateway: a real HTTPS_PROXY (CONNECT tunnels) between the client and the gateway
    openssl              # tst_tlsgateway: the openssl program makes the gateways' self-signed certificates
    prometheus           # tst_prometheusscrape: a real Prometheus scrapes --metrics-listen and runs the Grafana dashboard's queries
)
# Only for the clang presets: "asan" and "asan-portable" (clang compiles the tests a third faster than
# GCC under ASan; asan-portable also builds the libFuzzer harnesses) and "fuzz".
case "$preset" in
    asan|asan-portable|fuzz)
        packages+=(
            clang                # clang++ (clang 14): the sanitizer builds' compiler; libFuzzer exists only for clang
            libclang-rt-14-dev   # libclang_rt.asan, .ubsan and .fuzzer (clang-14 only recommends it)
        )
        ;;
esac

if [ "$action" = list ]; then
    printf '%s\n' "${packages[@]}"
    exit 0
fi

if [ "$install" = 1 ]; then
    missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "setup.sh: installing missing Debian packages: ${missing[*]}"
        sudo=()
        [ "$(id -u)" -eq 0 ] || sudo=(sudo)
        "${sudo[@]}" apt-get update -qq
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
    else
        echo "setup.sh: all ${#packages[@]} required Debian packages are present"
    fi
fi

cd "$here"
cmake --preset "$preset"
cmake --build --preset "$preset" --parallel "$(nproc)"

case "$preset" in default) build=build ;; *) build=build-$preset ;; esac

case "$action" in
    test)
        [ "$preset" = fuzz ] && exec bash fuzz/run.sh
        # Twice the cores: most tests wait on a server or a timer, not a core (the ci suite on 2 cores:
        # about 100 s of CPU; 220 s of wall time at --parallel 2, 150 s at 4).
        ctest --preset "$preset" --parallel "$((2 * $(nproc)))"
        ;;
    run)
        if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
            echo "setup.sh: no display found; starting the GUI on a virtual X server (xvfb-run)."
            exec xvfb-run -a "$build/app/tokenbench"
        fi
        exec "$build/app/tokenbench"
        ;;
esac
