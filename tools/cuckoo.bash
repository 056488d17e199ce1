# SPDX-License-Identifier: Apache-2.0 OR MIT
# bash completion for cuckoo(1).  Commands and options are read from the
# program's own help ('cuckoo --help', 'cuckoo help CMD'), so they cannot
# drift from what it accepts.  Installed by CMake into bash-completion's
# completions directory.
_cuckoo() {
    local cur prev words cword
    _init_completion || return
    local prog=${words[0]}
    if ((cword == 1)); then
        local cmds
        cmds=$("$prog" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p')
        COMPREPLY=($(compgen -W "$cmds help" -- "$cur"))
        return
    fi
    local cmd=${words[1]}
    if [[ $cmd == help ]]; then
        ((cword == 2)) && COMPREPLY=($(compgen -W "$("$prog" --help 2>/dev/null |
            sed -n 's/^  \([a-z][a-z]*\) .*/\1/p')" -- "$cur"))
        return
    fi
    case $prev in
        --keys) _filedir; return ;;
        --plot) _filedir -d; return ;;
        --capacity | --fpp | --fingerprint-bits | --bucket-size | --buckets | --max-kicks | \
            --seed | --load | --queries) return ;;
    esac
    if [[ $cur == -* ]]; then
        local opts
        opts=$("$prog" help "$cmd" 2>/dev/null | sed -n 's/^  \(-[^ ,]*\)\(, \(-[^ ]*\)\)\{0,1\}.*/\1 \3/p')
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    _filedir
}
complete -F _cuckoo cuckoo
