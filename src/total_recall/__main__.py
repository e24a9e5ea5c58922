from total_recall.surfaces.entry import main

if __name__ == "__main__":
    main()
