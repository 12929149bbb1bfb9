_idgen() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="idgen"
                ;;
            idgen,app)
                cmd="idgen__subcmd__app"
                ;;
            idgen,completions)
                cmd="idgen__subcmd__completions"
                ;;
            idgen,config)
                cmd="idgen__subcmd__config"
                ;;
            idgen,decode)
                cmd="idgen__subcmd__decode"
                ;;
            idgen,help)
                cmd="idgen__subcmd__help"
                ;;
            idgen,init-app)
                cmd="idgen__subcmd__init__subcmd__app"
                ;;
            idgen,inspect-freelist)
                cmd="idgen__subcmd__inspect__subcmd__freelist"
                ;;
            idgen,lease)
                cmd="idgen__subcmd__lease"
                ;;
            idgen,migrate)
                cmd="idgen__subcmd__migrate"
                ;;
            idgen,namespace)
                cmd="idgen__subcmd__namespace"
                ;;
            idgen,next)
                cmd="idgen__subcmd__next"
                ;;
            idgen,reload-segments)
                cmd="idgen__subcmd__reload__subcmd__segments"
                ;;
            idgen,serve)
                cmd="idgen__subcmd__serve"
                ;;
            idgen,status)
                cmd="idgen__subcmd__status"
                ;;
            idgen__subcmd__app,help)
                cmd="idgen__subcmd__app__subcmd__help"
                ;;
            idgen__subcmd__app,list)
                cmd="idgen__subcmd__app__subcmd__list"
                ;;
            idgen__subcmd__app,set)
                cmd="idgen__subcmd__app__subcmd__set"
                ;;
            idgen__subcmd__app,show)
                cmd="idgen__subcmd__app__subcmd__show"
                ;;
            idgen__subcmd__app__subcmd__help,help)
                cmd="idgen__subcmd__app__subcmd__help__subcmd__help"
                ;;
            idgen__subcmd__app__subcmd__help,list)
                cmd="idgen__subcmd__app__subcmd__help__subcmd__list"
                ;;
            idgen__subcmd__app__subcmd__help,set)
                cmd="idgen__subcmd__app__subcmd__help__subcmd__set"
                ;;
            idgen__subcmd__app__subcmd__help,show)
                cmd="idgen__subcmd__app__subcmd__help__subcmd__show"
                ;;
            idgen__subcmd__help,app)
                cmd="idgen__subcmd__help__subcmd__app"
                ;;
            idgen__subcmd__help,completions)
                cmd="idgen__subcmd__help__subcmd__completions"
                ;;
            idgen__subcmd__help,config)
                cmd="idgen__subcmd__help__subcmd__config"
                ;;
            idgen__subcmd__help,decode)
                cmd="idgen__subcmd__help__subcmd__decode"
                ;;
            idgen__subcmd__help,help)
                cmd="idgen__subcmd__help__subcmd__help"
                ;;
            idgen__subcmd__help,init-app)
                cmd="idgen__subcmd__help__subcmd__init__subcmd__app"
                ;;
            idgen__subcmd__help,inspect-freelist)
                cmd="idgen__subcmd__help__subcmd__inspect__subcmd__freelist"
                ;;
            idgen__subcmd__help,lease)
                cmd="idgen__subcmd__help__subcmd__lease"
                ;;
            idgen__subcmd__help,migrate)
                cmd="idgen__subcmd__help__subcmd__migrate"
                ;;
            idgen__subcmd__help,namespace)
                cmd="idgen__subcmd__help__subcmd__namespace"
                ;;
            idgen__subcmd__help,next)
                cmd="idgen__subcmd__help__subcmd__next"
                ;;
            idgen__subcmd__help,reload-segments)
                cmd="idgen__subcmd__help__subcmd__reload__subcmd__segments"
                ;;
            idgen__subcmd__help,serve)
                cmd="idgen__subcmd__help__subcmd__serve"
                ;;
            idgen__subcmd__help,status)
                cmd="idgen__subcmd__help__subcmd__status"
                ;;
            idgen__subcmd__help__subcmd__app,list)
                cmd="idgen__subcmd__help__subcmd__app__subcmd__list"
                ;;
            idgen__subcmd__help__subcmd__app,set)
                cmd="idgen__subcmd__help__subcmd__app__subcmd__set"
                ;;
            idgen__subcmd__help__subcmd__app,show)
                cmd="idgen__subcmd__help__subcmd__app__subcmd__show"
                ;;
            idgen__subcmd__help__subcmd__namespace,delete)
                cmd="idgen__subcmd__help__subcmd__namespace__subcmd__delete"
                ;;
            idgen__subcmd__help__subcmd__namespace,list)
                cmd="idgen__subcmd__help__subcmd__namespace__subcmd__list"
                ;;
            idgen__subcmd__help__subcmd__namespace,show)
                cmd="idgen__subcmd__help__subcmd__namespace__subcmd__show"
                ;;
            idgen__subcmd__namespace,delete)
                cmd="idgen__subcmd__namespace__subcmd__delete"
                ;;
            idgen__subcmd__namespace,help)
                cmd="idgen__subcmd__namespace__subcmd__help"
                ;;
            idgen__subcmd__namespace,list)
                cmd="idgen__subcmd__namespace__subcmd__list"
                ;;
            idgen__subcmd__namespace,show)
                cmd="idgen__subcmd__namespace__subcmd__show"
                ;;
            idgen__subcmd__namespace__subcmd__help,delete)
                cmd="idgen__subcmd__namespace__subcmd__help__subcmd__delete"
                ;;
            idgen__subcmd__namespace__subcmd__help,help)
                cmd="idgen__subcmd__namespace__subcmd__help__subcmd__help"
                ;;
            idgen__subcmd__namespace__subcmd__help,list)
                cmd="idgen__subcmd__namespace__subcmd__help__subcmd__list"
                ;;
            idgen__subcmd__namespace__subcmd__help,show)
                cmd="idgen__subcmd__namespace__subcmd__help__subcmd__show"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        idgen)
            opts="-v -h -V --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version init-app next reload-segments migrate lease inspect-freelist status serve app namespace config completions decode help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__app)
            opts="-v -h -V --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version list show set help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__app__subcmd__help)
            opts="list show set help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__app__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__app__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__app__subcmd__help__subcmd__set)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__app__subcmd__help__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__app__subcmd__list)
            opts="-v -h -V --json --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__app__subcmd__set)
            opts="-y -v -h -V --name --step --min-step --max-step --max-limit-id --yes --json --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --step)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-step)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-step)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-limit-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__app__subcmd__show)
            opts="-v -h -V --json --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__completions)
            opts="-v -h -V --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__config)
            opts="-v -h -V --json --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__decode)
            opts="-v -h -V --json --guess --between --candidates --layout --epoch --bits --unit --fix --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --dispenser --timeout --config --verbose --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --between)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --candidates)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --layout)
                    COMPREPLY=($(compgen -W "snowflake snowflake-dc discord instagram mastodon uid-generator uid-generator-dc sonyflake sonyflake-v2 yitter tsid seata segment leaf twitter mybatis-plus" -- "${cur}"))
                    return 0
                    ;;
                --epoch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --bits)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --unit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fix)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help)
            opts="init-app next reload-segments migrate lease inspect-freelist status serve app namespace config completions decode help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__app)
            opts="list show set"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__app__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__app__subcmd__set)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__app__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__config)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__decode)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__init__subcmd__app)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__inspect__subcmd__freelist)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__lease)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__migrate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__namespace)
            opts="list show delete"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__namespace__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__namespace__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__namespace__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__next)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__reload__subcmd__segments)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__serve)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__help__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__init__subcmd__app)
            opts="-v -h -V --app --name --step --max-limit-id --description --min-step --max-step --target-interval --json --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --app)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --step)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-limit-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --description)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-step)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-step)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --target-interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__inspect__subcmd__freelist)
            opts="-v -h -V --namespace --repair --yes --json --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --namespace)
                    COMPREPLY=("${cur}")
                    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
                        compopt -o nospace
                    fi
                    return 0
                    ;;
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__lease)
            opts="-n -v -h -V --namespace --layout --epoch --bits --unit --fix --count --stdin --holder --ttl --assigner --max-clock-back --json --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --namespace)
                    COMPREPLY=("${cur}")
                    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
                        compopt -o nospace
                    fi
                    return 0
                    ;;
                --layout)
                    COMPREPLY=($(compgen -W "snowflake snowflake-dc discord instagram mastodon uid-generator uid-generator-dc sonyflake sonyflake-v2 yitter tsid seata segment leaf twitter mybatis-plus" -- "${cur}"))
                    return 0
                    ;;
                --epoch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --bits)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --unit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fix)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --holder)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ttl)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --assigner)
                    COMPREPLY=($(compgen -W "lease worker-node" -- "${cur}"))
                    return 0
                    ;;
                --max-clock-back)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__migrate)
            opts="-v -h -V --app --to --from-store --dry-run --yes --json --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --app)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --to)
                    COMPREPLY=("${cur}")
                    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
                        compopt -o nospace
                    fi
                    return 0
                    ;;
                --from-store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__namespace)
            opts="-v -h -V --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version list show delete help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__namespace__subcmd__delete)
            opts="-y -v -h -V --yes --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__namespace__subcmd__help)
            opts="list show delete help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__namespace__subcmd__help__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__namespace__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__namespace__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__namespace__subcmd__help__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__namespace__subcmd__list)
            opts="-v -h -V --json --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__namespace__subcmd__show)
            opts="-v -h -V --json --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__next)
            opts="-n -v -h -V --app --gate-pass --count --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --app)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gate-pass)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__reload__subcmd__segments)
            opts="-q -v -h -V --app --idle --prune --jobs --json --quiet --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --app)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --idle)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__serve)
            opts="-v -h -V --listen --allow-remote --token-file --namespace --layout --epoch --bits --unit --fix --holder --ttl --max-clock-back --max-connections --max-requests --buffer --header-timeout --write-timeout --drain-timeout --max-n --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --listen)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --layout)
                    COMPREPLY=($(compgen -W "snowflake snowflake-dc discord instagram mastodon uid-generator uid-generator-dc sonyflake sonyflake-v2 yitter tsid seata segment leaf twitter mybatis-plus" -- "${cur}"))
                    return 0
                    ;;
                --epoch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --bits)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --unit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fix)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --holder)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ttl)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-clock-back)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-connections)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-requests)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --buffer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --header-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --drain-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        idgen__subcmd__status)
            opts="-v -h -V --epoch --warn-stock --idle --crit-stock --check --json --format --redis --redis-node --redis-password-file --redis-ca --redis-cert --redis-key --mysql --mysql-password-file --mysql-ca --mysql-cert --mysql-key --store --config --dispenser --timeout --verbose --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --epoch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --idle)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --warn-stock)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --crit-stock)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "text json prometheus" -- "${cur}"))
                    return 0
                    ;;
                --redis)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redis-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-password-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mysql-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dispenser)
                    COMPREPLY=($(compgen -W "queue range" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _idgen -o nosort -o bashdefault -o default idgen
else
    complete -F _idgen -o bashdefault -o default idgen
fi
