from gitmem.frontends.launch import main

if __name__ == "__main__":
    main()
