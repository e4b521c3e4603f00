from ggp.cli import main

raise SystemExit(main())
