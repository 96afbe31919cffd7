# The pure-Rust engine (no libtorch), for OpenBench and anyone without libtorch:
#
#   make                              ./cerise, with the shipped net embedded
#   make EXE=path                     the binary at `path`
#   make EXE=path EVALFILE=net        embed another .safetensors net (an MLP: the native
#                                     backend runs only those)
#
# `path bench` then ends with `N nodes M nps`, the lines OpenBench reads. The full build
# (libtorch: the torch backend, CUDA, training) is scripts/setup.sh.
#
# Its own target directory, so that this build and the full one in target/release do not
# replace each other's binary; no debug info, so the binary is about 4.5 MB.

EXE ?= cerise
EVALFILE ?=
CARGO ?= cargo
LITE_TARGET := $(CURDIR)/target/lite

# Some OpenBench clients pass their compiler as CC (here cargo); a dependency's assembly
# (psm, under vampirc-uci's parser) needs a real C compiler, so such a CC is not handed on.
ifneq ($(filter cargo% rustc%,$(notdir $(CC))),)
unexport CC
endif

.PHONY: all clean
all:
	CERISE_EVALFILE='$(if $(EVALFILE),$(abspath $(EVALFILE)))' CARGO_PROFILE_RELEASE_DEBUG=0 \
		$(CARGO) build --release --no-default-features --target-dir '$(LITE_TARGET)'
	cp '$(LITE_TARGET)/release/cerise' '$(EXE)'

clean:
	rm -rf '$(LITE_TARGET)'
