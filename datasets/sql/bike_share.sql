-- bike_share: a small city bike-share scheme, written for InterCode Studio's demo SQL tasks.
-- Plain SQL that both MySQL/MariaDB and the Studio's SQLite loader accept: CREATE TABLE + INSERT.

CREATE TABLE `stations` (
  `station_id` int NOT NULL,
  `name` varchar(60) NOT NULL,
  `district` varchar(40) DEFAULT NULL,
  `docks` int NOT NULL DEFAULT '0',
  `opened` date DEFAULT NULL,
  PRIMARY KEY (`station_id`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;

CREATE TABLE `bikes` (
  `bike_id` int NOT NULL,
  `model` varchar(30) NOT NULL,
  `electric` int NOT NULL DEFAULT '0',
  `home_station` int DEFAULT NULL,
  PRIMARY KEY (`bike_id`),
  KEY `bikes_home` (`home_station`),
  CONSTRAINT `bikes_home_fk` FOREIGN KEY (`home_station`) REFERENCES `stations` (`station_id`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;

CREATE TABLE `riders` (
  `rider_id` int NOT NULL,
  `name` varchar(60) NOT NULL,
  `plan` varchar(10) NOT NULL,
  `joined` date DEFAULT NULL,
  `home_city` varchar(40) DEFAULT NULL,
  PRIMARY KEY (`rider_id`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;

CREATE TABLE `trips` (
  `trip_id` int NOT NULL,
  `bike_id` int NOT NULL,
  `rider_id` int NOT NULL,
  `start_station` int NOT NULL,
  `end_station` int NOT NULL,
  `started_at` datetime NOT NULL,
  `minutes` int NOT NULL,
  `fare` decimal(6,2) NOT NULL,
  PRIMARY KEY (`trip_id`),
  KEY `trips_bike` (`bike_id`),
  KEY `trips_rider` (`rider_id`),
  CONSTRAINT `trips_bike_fk` FOREIGN KEY (`bike_id`) REFERENCES `bikes` (`bike_id`),
  CONSTRAINT `trips_rider_fk` FOREIGN KEY (`rider_id`) REFERENCES `riders` (`rider_id`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;

INSERT INTO `stations` VALUES
  (1,'Harbour Gate','Waterfront',24,'2019-04-12'),
  (2,'Old Mill Square','Old Town',18,'2019-04-12'),
  (3,'Cedar Park','Northside',12,'2019-06-01'),
  (4,'Station Road','Central',30,'2019-04-12'),
  (5,'University Library','Campus',20,'2020-09-15'),
  (6,'Riverside Steps','Waterfront',16,'2020-05-03'),
  (7,'Market Hall','Central',22,'2021-03-20'),
  (8,'Hilltop Reservoir','Northside',10,'2022-07-08');

INSERT INTO `bikes` VALUES
  (101,'Roadster 3',0,1),
  (102,'Roadster 3',0,4),
  (103,'Volt E2',1,4),
  (104,'Volt E2',1,2),
  (105,'Commuter 7',0,5),
  (106,'Volt E2',1,7),
  (107,'Roadster 3',0,6),
  (108,'Commuter 7',0,3),
  (109,'Volt E3',1,1),
  (110,'Volt E3',1,5);

INSERT INTO `riders` VALUES
  (1,'Amara Okafor','annual','2019-05-02','Portside'),
  (2,'Bruno Lindqvist','monthly','2020-01-17','Portside'),
  (3,'Chen Wei','annual','2019-11-30','Eastvale'),
  (4,'Dalia Haddad','day','2023-06-11',NULL),
  (5,'Emil Novak','monthly','2021-08-05','Portside'),
  (6,'Fatima Zahra','annual','2020-03-22','Eastvale'),
  (7,'Gus O\'Leary','day','2023-07-04','Westbrook'),
  (8,'Hana Sato','annual','2022-02-14','Portside'),
  (9,'Ivan Petrov','monthly','2021-12-01','Westbrook'),
  (10,'Julia Costa','annual','2019-04-20','Portside'),
  (11,'Kofi Mensah','day','2023-08-19',NULL),
  (12,'Lena Fischer','monthly','2022-10-09','Eastvale');

INSERT INTO `trips` VALUES
  (1,103,7,1,2,'2023-08-01 09:23:00',10,2.70),
  (2,109,4,1,2,'2023-08-01 19:26:00',11,2.82),
  (3,102,9,7,1,'2023-08-02 09:14:00',10,1.00),
  (4,110,10,7,1,'2023-08-02 13:02:00',74,8.88),
  (5,105,7,3,2,'2023-08-03 15:35:00',26,2.80),
  (6,102,10,4,6,'2023-08-03 09:35:00',11,0.55),
  (7,110,4,8,7,'2023-08-04 16:29:00',61,8.82),
  (8,105,4,3,4,'2023-08-05 08:36:00',41,3.55),
  (9,109,8,6,8,'2023-08-05 15:38:00',12,1.44),
  (10,109,7,3,6,'2023-08-06 10:59:00',65,9.30),
  (11,101,11,2,6,'2023-08-07 16:44:00',47,3.85),
  (12,110,8,8,2,'2023-08-07 08:17:00',63,7.56),
  (13,102,1,5,8,'2023-08-07 15:45:00',52,2.60),
  (14,101,8,6,3,'2023-08-08 09:31:00',10,0.50),
  (15,104,5,3,4,'2023-08-08 18:25:00',66,8.42),
  (16,103,8,7,5,'2023-08-09 10:52:00',58,6.96),
  (17,107,6,7,4,'2023-08-10 10:05:00',25,1.25),
  (18,103,4,4,1,'2023-08-10 21:53:00',26,4.62),
  (19,105,1,3,7,'2023-08-11 17:39:00',75,3.75),
  (20,106,3,1,8,'2023-08-11 18:25:00',54,6.48),
  (21,102,8,7,1,'2023-08-12 12:04:00',29,1.45),
  (22,108,3,2,6,'2023-08-12 07:06:00',3,0.15),
  (23,110,3,2,6,'2023-08-12 06:04:00',29,3.48),
  (24,103,11,5,6,'2023-08-13 17:30:00',18,3.66),
  (25,102,8,8,8,'2023-08-13 21:19:00',13,0.65),
  (26,103,2,6,5,'2023-08-13 21:53:00',23,3.26),
  (27,104,9,6,3,'2023-08-14 06:48:00',70,8.90),
  (28,102,12,5,6,'2023-08-15 11:22:00',31,2.05),
  (29,109,9,6,4,'2023-08-15 12:51:00',33,4.46),
  (30,104,4,8,6,'2023-08-16 06:01:00',38,6.06),
  (31,108,5,4,6,'2023-08-16 20:51:00',47,2.85),
  (32,106,2,4,2,'2023-08-16 13:30:00',28,3.86),
  (33,104,8,1,8,'2023-08-17 17:51:00',13,1.56),
  (34,102,7,4,8,'2023-08-17 11:27:00',45,3.75),
  (35,107,8,7,2,'2023-08-18 11:10:00',19,0.95),
  (36,103,10,8,3,'2023-08-19 21:42:00',47,5.64),
  (37,109,9,3,1,'2023-08-20 06:51:00',16,2.42),
  (38,109,12,3,7,'2023-08-20 12:52:00',30,4.10);
