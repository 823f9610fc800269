"""The shell: lexer, parser, word expansion, interpreter, the hosts' files and tab completion."""
